import { randomUUID } from 'node:crypto';
import type { RouteContext } from '../http/context';
import type { Reply } from '../http/reply';
import { whenReady, type MaybePromise } from '../maybe-async';
import type { LeasedBudget, Spent } from './leased-budget';
import type { LimitOverrides } from './limit-overrides';
import { bucketItem, concurrencyItem, type LimitItem } from './rate-limit-fields';
import { rateLimited, tooManySlowRequests } from './refusal-words';
import type { SlotClaim, SlotCounter } from './slot-counter';
import type { BucketPolicy, Clock } from './token-bucket';
import type { OutageNotice } from './outage-notice';

export interface FairShareParts {
  /** The default per-app and per-address policies; absent: that limiter is off. */
  app?: BucketPolicy;
  address?: BucketPolicy;
  overrides: LimitOverrides;
  /** Slow requests in flight at once; 0: no cap. */
  slowPerApp: number;
  slowPerAddress: number;
  appBudget: LeasedBudget;
  addressBudget: LeasedBudget;
  slots: SlotCounter;
  clock: Clock;
  outage: OutageNotice;
  /** The routes that take a slow-request slot, in words, for the refusal (refusal-words.ts slowRoutesWords). */
  slowRoutes: string;
}

/**
 * The gateway's fair-share limits, as the dispatcher applies them to a row
 * that is rate-limited (route.ts): the client address's bucket before
 * authentication, the app's after it (when the request authenticated as an
 * app), and on a slow row a slot under each concurrency cap while it runs.
 * Each budget spent adds its RateLimit item to the request (ctx.rateLimits),
 * which the dispatcher writes on the answer, refusals included.
 */
export class FairShare {
  private readonly slotPrefix = randomUUID();
  private slotCount = 0;

  constructor(private readonly parts: FairShareParts) {}

  /** Before authentication: the address's bucket. Throws (or rejects with) 429 rate_limited. */
  admitAddress(ctx: RouteContext): MaybePromise<void> {
    const policy = this.parts.address;
    if (!policy) return;
    return whenReady(this.parts.addressBudget.spend(ctx.clientAddress, policy), (spent) => this.count(ctx, spent));
  }

  /**
   * After authentication, when the request authenticated as an app: that
   * app's bucket, under its own limit when an operator set one. An exempt
   * app's requests carry no RateLimit fields and give back the address token
   * they spent, so a load-test app is held by neither budget.
   */
  admitApp(ctx: RouteContext): MaybePromise<void> {
    const { credential } = ctx;
    if (credential?.kind !== 'app') return;
    const appId = credential.principal.appId;
    const own = this.parts.overrides.of(appId);
    if (own?.kind === 'exempt') {
      if (ctx.rateLimits?.some((item) => item.name === 'address')) this.parts.addressBudget.refund(ctx.clientAddress);
      ctx.rateLimits = undefined;
      return;
    }
    const policy = own ? this.policyOf(appId, own) : this.parts.app;
    if (!policy) return;
    return whenReady(this.parts.appBudget.spend(appId, policy), (spent) => this.count(ctx, spent));
  }

  /**
   * Runs a slow request (route.ts `slow`) within a slot of its address's
   * cap and, when it authenticated as an app, its app's; the slots are given
   * back when the answer is ready, however it ends. A batch's items run
   * inside their batch's slot. Beyond a cap: 429 too_many_slow_requests.
   */
  whileSlow(ctx: RouteContext, run: () => MaybePromise<Reply>): MaybePromise<Reply> {
    const claims: SlotClaim[] = [];
    const names: string[] = [];
    if (this.parts.slowPerAddress > 0) {
      claims.push({ key: `address:${ctx.clientAddress}`, cap: this.parts.slowPerAddress });
      names.push('address-slow');
    }
    if (this.parts.slowPerApp > 0 && ctx.credential?.kind === 'app') {
      claims.push({ key: `app:${ctx.credential.principal.appId}`, cap: this.parts.slowPerApp });
      names.push('app-slow');
    }
    if (!claims.length || ctx.batch) return run();
    const id = `${this.slotPrefix}:${++this.slotCount}`;
    let held;
    try {
      held = this.parts.slots.hold(claims, id, this.parts.clock());
    } catch (error) {
      this.parts.outage.report(error);
      return run();
    }
    const inSlot = (taken: Awaited<typeof held>): MaybePromise<Reply> => {
      if (!taken.held) {
        const full = claims[taken.full]!;
        this.add(ctx, concurrencyItem(names[taken.full]!, full.cap, full.cap));
        throw tooManySlowRequests(names[taken.full] === 'app-slow' ? 'app' : 'address', full.cap, this.parts.slowRoutes);
      }
      claims.forEach((claim, i) => this.add(ctx, concurrencyItem(names[i]!, claim.cap, taken.inUse[i]!)));
      const release = () => this.parts.slots.release(claims, id);
      let answer: MaybePromise<Reply>;
      try {
        answer = run();
      } catch (error) {
        release();
        throw error;
      }
      if (!(answer instanceof Promise)) {
        release();
        return answer;
      }
      return answer.finally(release);
    };
    if (!(held instanceof Promise)) return inSlot(held);
    return held.then(inSlot, (error: unknown) => {
      // Redis unreachable: fail open, as the buckets do.
      this.parts.outage.report(error);
      return run();
    });
  }

  private count(ctx: RouteContext, spent: Spent): void {
    if (!spent.state) return;
    this.add(ctx, bucketItem(spent.state.policy, spent.state.remaining, spent.state.resetSeconds));
    if (!spent.ok) throw rateLimited(spent.state.policy, spent.retryAfterSeconds);
  }

  private add(ctx: RouteContext, item: LimitItem): void {
    (ctx.rateLimits ??= []).push(item);
  }

  /** One policy object per overridden app, so its RateLimit-Policy item is built once (rate-limit-fields.ts). */
  private readonly overridden = new Map<string, BucketPolicy>();
  private policyOf(appId: string, own: { perSecond: number; burst: number }): BucketPolicy {
    let policy = this.overridden.get(appId);
    if (!policy || policy.perSecond !== own.perSecond || policy.burst !== own.burst) {
      policy = { name: 'app', perSecond: own.perSecond, burst: own.burst };
      this.overridden.set(appId, policy);
    }
    return policy;
  }
}
