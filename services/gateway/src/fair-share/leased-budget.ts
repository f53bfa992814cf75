import type { MaybePromise } from '../maybe-async';
import type { BucketStore } from './bucket-store';
import type { OutageNotice } from './outage-notice';
import { msUntilNextToken, type BucketPolicy, type Clock, type Grant } from './token-bucket';

/** What one budget says of a request, for its RateLimit item. */
export interface BudgetState {
  readonly policy: BucketPolicy;
  /** Whole requests left now (the draft's r). */
  readonly remaining: number;
  /** Seconds until one more request's worth has come back (the draft's t; Retry-After's value when none is left). */
  readonly resetSeconds: number;
}

export type Spent =
  /** Let through; `state` absent when the store could not be asked (fail open: nothing to report). */
  { readonly ok: true; readonly state?: BudgetState } | { readonly ok: false; readonly state: BudgetState; readonly retryAfterSeconds: number };

interface Lease {
  /** Whole tokens taken from the store and not yet spent here. */
  tokens: number;
  /** What the store's bucket held after the last take, and when. */
  left: number;
  at: number;
  /** Until then the store's bucket has no whole token for anyone: refused without asking it. */
  refusedUntil: number;
  /** A take from the store on its way: requests arriving meanwhile wait for it instead of sending their own. */
  pending?: Promise<void>;
  usedAt: number;
}

const UNCOUNTED: Spent = { ok: true };
/** After the store failed, how long requests go uncounted before it is asked again. */
const STORE_RETRY_MS = 1000;
const MAX_LEASES = 100_000;
const SWEEP_EVERY_MS = 10_000;
/** A lease unused this long is dropped (its tokens, at most one chunk, are simply not spent). */
const IDLE_MS = 10_000;

/**
 * One kind of budget (per app, or per client address) as this gateway
 * spends it. The count lives in a BucketStore; with a shared store (Redis)
 * this gateway takes a chunk of up to max(1, burst/10) tokens at once and
 * spends them locally, so one request in a chunk pays a Redis round trip and
 * the rest pay a Map lookup. The price is overshoot: tokens leased a while
 * ago may be spent after the bucket refilled, so across all gateways a key
 * can get at most (replicas × chunk) requests beyond its burst; in the long
 * run it still gets no more than its rate. A store that fails lets requests
 * through uncounted (fail open: the limits are about fairness, not security)
 * and is asked again a second later.
 */
export class LeasedBudget {
  private readonly leases = new Map<string, Lease>();
  private storeDownUntil = 0;
  private nextSweep = 0;

  constructor(
    private readonly store: BucketStore,
    private readonly clock: Clock,
    private readonly outage: OutageNotice,
  ) {}

  /** Spends one request's token for `key` (an App ID, a client address) under `policy`. */
  spend(key: string, policy: BucketPolicy): MaybePromise<Spent> {
    const now = this.clock();
    const lease = this.leaseOf(key, policy, now);
    if (lease.tokens >= 1 || now < lease.refusedUntil) return this.fromLease(lease, policy, now);
    if (now < this.storeDownUntil) return UNCOUNTED;
    if (lease.pending) return lease.pending.then(() => this.spend(key, policy));
    const chunk = this.store.shared ? Math.max(1, Math.floor(policy.burst / 10)) : 1;
    let grant: MaybePromise<Grant>;
    try {
      grant = this.store.take(key, policy, chunk, now);
    } catch (error) {
      return this.unreachable(error, now);
    }
    if (!(grant instanceof Promise)) {
      this.lease(lease, grant, policy, now);
      return this.fromLease(lease, policy, now);
    }
    const pending = grant.then(
      (granted) => this.lease(lease, granted, policy, this.clock()),
      (error: unknown) => void this.unreachable(error, this.clock()),
    );
    lease.pending = pending.then(() => {
      lease.pending = undefined;
    });
    return lease.pending.then(() => this.spend(key, policy));
  }

  /** Gives back the token a request spent (it turned out to be exempt), to be spent by the next one here. */
  refund(key: string): void {
    const lease = this.leases.get(key);
    if (lease) lease.tokens += 1;
  }

  /** A token from the lease, or the refusal it holds (after a take, one of the two is there). */
  private fromLease(lease: Lease, policy: BucketPolicy, now: number): Spent {
    if (lease.tokens < 1) return this.refused(lease, policy, now);
    lease.tokens -= 1;
    return { ok: true, state: this.stateOf(lease, policy, now) };
  }

  private leaseOf(key: string, policy: BucketPolicy, now: number): Lease {
    let lease = this.leases.get(key);
    if (!lease) {
      if (now >= this.nextSweep || this.leases.size >= MAX_LEASES) this.sweep(now);
      lease = { tokens: 0, left: policy.burst, at: now, refusedUntil: 0, usedAt: now };
      this.leases.set(key, lease);
    }
    lease.usedAt = now;
    return lease;
  }

  private lease(lease: Lease, grant: Grant, policy: BucketPolicy, now: number): void {
    lease.tokens += grant.granted;
    lease.left = grant.left;
    lease.at = now;
    // None granted: nobody can have a token before the bucket refills one, so refuse locally until then.
    lease.refusedUntil = grant.granted > 0 ? 0 : now + msUntilNextToken(grant.left, policy);
  }

  /**
   * The budget as a client should read it: the tokens held here plus the
   * store's bucket as last seen, refilled since (other gateways' spending
   * since then is not known, so it is an estimate within one chunk each).
   */
  private stateOf(lease: Lease, policy: BucketPolicy, now: number): BudgetState {
    const refilled = Math.min(policy.burst, lease.left + ((now - lease.at) * policy.perSecond) / 1000);
    const available = Math.min(policy.burst, lease.tokens + refilled);
    return { policy, remaining: Math.floor(available), resetSeconds: Math.ceil(msUntilNextToken(available, policy) / 1000) };
  }

  private refused(lease: Lease, policy: BucketPolicy, now: number): Spent {
    const retryAfterSeconds = Math.max(1, Math.ceil((lease.refusedUntil - now) / 1000));
    return { ok: false, retryAfterSeconds, state: { policy, remaining: 0, resetSeconds: retryAfterSeconds } };
  }

  private unreachable(error: unknown, now: number): Spent {
    this.outage.report(error);
    this.storeDownUntil = now + STORE_RETRY_MS;
    return UNCOUNTED;
  }

  /** Forgets idle leases; beyond MAX_LEASES the oldest too (a tenth at once). Forgetting one loses at most a chunk unspent. */
  private sweep(now: number): void {
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, lease] of this.leases) {
      if (!lease.pending && now - lease.usedAt >= IDLE_MS && now >= lease.refusedUntil) this.leases.delete(key);
    }
    for (const [key, lease] of this.leases) {
      if (this.leases.size < MAX_LEASES * 0.9) break;
      if (!lease.pending) this.leases.delete(key);
    }
  }
}
