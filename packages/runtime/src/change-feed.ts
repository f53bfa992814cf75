import { randomBytes } from 'node:crypto';
import type { Logger } from './logger';

/**
 * What changed, as the caches on a request's path need to hear it
 * (docs/state.md, "Caches"):
 * - `apps`: identity created or changed an app, or changed its owner (a new
 *   app, credentials, redirect URIs, scopes, status, deletion, an owner
 *   disabled or enabled): identity's credential cache and app lists, oauth's
 *   app directory and the gateways' remembered verdicts drop what they hold;
 * - `tokens`: oauth revoked an access token or a grant: the gateways'
 *   remembered verdicts drop what they hold;
 * - `sessions`: identity ended sessions (a sign-out, an account deleted):
 *   identity's remembered sessions drop what they hold (`apps` drops them
 *   too: an owner disabled or enabled).
 * A process ignores a change it does not know (an older replica in a roll).
 */
export type Change = 'apps' | 'tokens' | 'sessions';

const CHANGES: readonly Change[] = ['apps', 'tokens', 'sessions'];

/** The one Redis channel every replica of every service listens on. */
export const CHANGE_CHANNEL = 'sandbox:changes';

/**
 * Tells the caches of every replica that something they may hold has
 * changed. A cache subscribes with a `drop` that empties it; the writer
 * publishes after its write and before it answers, so the answer leaves
 * after every replica has been told.
 */
export interface ChangeFeed {
  /**
   * Drops this process's subscribers at once (before returning), then tells
   * the other processes; resolves when they have been told (on Redis: when
   * Redis has taken the message, which it passes on to every subscriber
   * before it answers). Never rejects: the write it follows has happened, so
   * a failure to tell is logged, and the others' caches fall back to their
   * lifetimes.
   */
  publish(change: Change): Promise<void>;
  /**
   * Runs `drop` on each of these changes from any process, and whenever the
   * feed comes back after a break (what was said meanwhile is lost, so
   * everything is dropped).
   */
  subscribe(changes: readonly Change[], drop: () => void): void;
  close(): Promise<void>;
}

type Listener = { changes: ReadonlySet<Change>; drop: () => void };

/**
 * Within one process only: the embedded default, where each service runs
 * as one process without Redis (identity is then the only process that
 * hears identity's changes, and the gateway drops its verdicts on the
 * changes it forwards itself).
 */
export function localChangeFeed(): ChangeFeed {
  const listeners: Listener[] = [];
  return {
    async publish(change) {
      dropFor(listeners, change);
    },
    subscribe(changes, drop) {
      listeners.push({ changes: new Set(changes), drop });
    },
    async close() {
      listeners.length = 0;
    },
  };
}

/**
 * What the feed needs of a Redis client; ioredis's `Redis` (created with
 * `lazyConnect` and `autoResubscribe: false`: openRedis with
 * CHANGE_FEED_REDIS) is one. Structural, so a test can give its own.
 */
export interface PubSubClient {
  connect(): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channel: string): Promise<unknown>;
  on(event: string, listener: (...args: never[]) => void): unknown;
  disconnect(): void;
}

export interface RedisChangeFeedOptions {
  /** A new client each call: the subscriber has one of its own (a subscribed connection can do nothing else), a publisher another. */
  open: () => PubSubClient;
  /** Whether this process publishes (identity, oauth) or only listens (the gateway). */
  publishes: boolean;
  logger: Logger;
  /** How long start-up waits for the first subscription before it goes on without (dropping everything once it arrives). */
  subscribeTimeoutMs?: number;
}

/**
 * Through Redis pub/sub, to every replica of every service sharing the
 * Redis. Pub/sub keeps nothing: a process that is not connected when a
 * message goes out never gets it. So the subscriber subscribes again on
 * every reconnect itself (ioredis's autoResubscribe would not say when it is
 * back) and then drops everything; until then the caches' own lifetimes
 * bound what they serve. Resolves once subscribed, or after
 * subscribeTimeoutMs without (it keeps trying in the background).
 */
export async function redisChangeFeed(options: RedisChangeFeedOptions): Promise<ChangeFeed> {
  const { logger } = options;
  const listeners: Listener[] = [];
  // Each process's own messages are already dropped by publish(); the id tells them apart.
  const self = randomBytes(8).toString('hex');
  const subscriber = options.open();
  let closed = false;
  let broken = false;
  let firstSubscription: (() => void) | undefined;
  const subscribed = new Promise<void>((resolve) => (firstSubscription = resolve));

  subscriber.on('error', () => undefined); // a break shows as a reconnect, and is logged once it is over
  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== CHANGE_CHANNEL) return;
    const [change, from] = message.split(' ');
    if (from === self || !CHANGES.includes(change as Change)) return;
    dropFor(listeners, change as Change);
  });
  // 'ready' comes after the first connect and after every reconnect.
  subscriber.on('ready', () => {
    subscriber.subscribe(CHANGE_CHANNEL).then(
      () => {
        if (closed) return;
        dropAll(listeners);
        if (broken) logger.info('cache changes: subscribed to Redis again; every cache dropped what it held');
        broken = false;
        firstSubscription?.();
        firstSubscription = undefined;
      },
      (error: Error) => logger.warn({ err: error.message }, 'could not subscribe to cache changes; trying again on the next reconnect'),
    );
  });
  subscriber.on('close', () => {
    if (closed || broken || firstSubscription) return;
    broken = true;
    logger.warn('cache changes: the subscription to Redis broke; caches fall back to their lifetimes until it is back');
  });
  subscriber.connect().catch(() => undefined); // retried by ioredis's retryStrategy

  const publisher = options.publishes ? options.open() : undefined;
  publisher?.on('error', () => undefined); // reported by the failed publish
  publisher?.connect().catch(() => undefined);

  const timeoutMs = options.subscribeTimeoutMs ?? 3000;
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    subscribed.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (!inTime) logger.warn({ timeoutMs }, 'cache changes: not subscribed to Redis yet; caches fall back to their lifetimes until it is');

  return {
    async publish(change) {
      dropFor(listeners, change);
      if (!publisher) return;
      try {
        await publisher.publish(CHANGE_CHANNEL, `${change} ${self}`);
      } catch (error) {
        logger.warn({ err: (error as Error).message, change }, 'could not tell the other replicas of a change; their caches drop it within their lifetimes');
      }
    },
    subscribe(changes, drop) {
      listeners.push({ changes: new Set(changes), drop });
    },
    async close() {
      closed = true;
      listeners.length = 0;
      subscriber.disconnect();
      publisher?.disconnect();
    },
  };
}

function dropFor(listeners: readonly Listener[], change: Change): void {
  for (const listener of listeners) if (listener.changes.has(change)) listener.drop();
}

function dropAll(listeners: readonly Listener[]): void {
  for (const listener of listeners) listener.drop();
}

/**
 * ioredis options for the feed's clients: fail fast as every Redis client
 * here (REDIS_FAIL_FAST), connected by the feed, which also subscribes again
 * itself after a reconnect.
 */
export const CHANGE_FEED_REDIS = { lazyConnect: true, autoResubscribe: false } as const;
