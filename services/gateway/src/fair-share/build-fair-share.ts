import type { Redis } from 'ioredis';
import { openRedis, type Logger } from '@sandbox/runtime';
import type { BucketStore } from './bucket-store';
import { FairShare } from './fair-share';
import { LeasedBudget } from './leased-budget';
import { ConfiguredOverrides, LayeredOverrides, type LimitOverrides } from './limit-overrides';
import { MemoryBucketStore } from './memory-bucket-store';
import { MemorySlotCounter } from './memory-slot-counter';
import { OutageNotice } from './outage-notice';
import { PolledOverrides, type ListAppLimits } from './polled-overrides';
import { RedisBucketStore } from './redis-bucket-store';
import { RedisSlotCounter } from './redis-slot-counter';
import type { SlotCounter } from './slot-counter';
import type { BucketPolicy, Clock } from './token-bucket';

/**
 * The longest a slow request holds its slot in Redis: the 60 s wait or batch
 * budget, the call's 5 s margin, and room to spare. Beyond it a slot lapses,
 * so a crashed gateway's slots free themselves within two minutes.
 */
const SLOT_LAPSE_MS = 120_000;

/** The fair-share limits as configured (config.ts reads them from the environment: RATE_LIMIT_*, SLOW_REQUESTS_*, REDIS_URL). */
export interface FairShareSettings {
  /** The default per-app and per-address policies; absent: that limiter is off. */
  app?: BucketPolicy;
  address?: BucketPolicy;
  /** RATE_LIMIT_EXEMPT_APPS and RATE_LIMIT_APP_OVERRIDES. */
  exemptApps: readonly string[];
  appOverrides: ReadonlyMap<string, { perSecond: number; burst: number }>;
  /** Slow requests in flight at once; 0: no cap. */
  slowPerApp: number;
  slowPerAddress: number;
  /** Where the counts live, shared by every gateway replica; absent: in this process. */
  redisUrl?: string;
}

/**
 * The fair-share limits from the configuration, or none when no limit is
 * configured (the embedded default: the dispatcher then does nothing extra,
 * and identity's app limits are not polled).
 * With REDIS_URL the counts live in Redis, shared by every gateway replica;
 * otherwise in this process. The Redis connection is not waited for: until
 * it is up (and whenever it is down) requests go uncounted, so the API never
 * waits on its limiter.
 */
export function buildFairShare(
  config: FairShareSettings,
  options: {
    logger: Logger;
    /** The routes that take a slow-request slot, in words (refusal-words.ts slowRoutesWords). */
    slowRoutes: string;
    clock?: Clock;
    overrides?: LimitOverrides;
    listAppLimits?: ListAppLimits;
  },
): { fairShare?: FairShare; close(): void } {
  const { app, address, slowPerApp, slowPerAddress, redisUrl } = config;
  const overridden = config.exemptApps.length > 0 || config.appOverrides.size > 0;
  if (!app && !address && !overridden && !slowPerApp && !slowPerAddress) return { close: () => undefined };
  const clock = options.clock ?? Date.now;
  let redis: Redis | undefined;
  let buckets: () => BucketStore = () => new MemoryBucketStore();
  let slots: SlotCounter = new MemorySlotCounter();
  if (redisUrl) {
    const client = openRedis(redisUrl);
    client.on('error', () => undefined); // reported by the failed commands (OutageNotice), not as an unhandled event
    const store = new RedisBucketStore(client);
    buckets = () => store;
    slots = new RedisSlotCounter(client, SLOT_LAPSE_MS);
    redis = client;
  }
  const outage = new OutageNotice(options.logger, clock);
  // An operator's limits through the admin API, polled from identity, over the configured ones.
  const polled = !options.overrides && options.listAppLimits ? new PolledOverrides(options.listAppLimits, options.logger, { clock }) : undefined;
  polled?.start();
  const fairShare = new FairShare({
    app,
    address,
    overrides: options.overrides ?? (polled ? new LayeredOverrides([polled, new ConfiguredOverrides(config)]) : new ConfiguredOverrides(config)),
    slowPerApp,
    slowPerAddress,
    appBudget: new LeasedBudget(buckets(), clock, outage),
    addressBudget: new LeasedBudget(buckets(), clock, outage),
    slots,
    clock,
    outage,
    slowRoutes: options.slowRoutes,
  });
  return {
    fairShare,
    close: () => {
      polled?.stop();
      redis?.disconnect();
    },
  };
}
