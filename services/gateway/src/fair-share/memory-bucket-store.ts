import type { BucketStore } from './bucket-store';
import { fullBucket, msUntilFull, take, type BucketPolicy, type BucketState, type Grant } from './token-bucket';

/** Bounds the buckets held: one per client address (or app) seen recently. */
const MAX_BUCKETS = 100_000;
const SWEEP_EVERY_MS = 10_000;

interface Held extends BucketState {
  /** When it is full again, and so as good as forgotten. */
  fullAt: number;
}

/**
 * The buckets of one gateway, in memory: the embedded default, where there is
 * one gateway (one store per kind of budget, so keys need no prefix).
 * Synchronous, so a request spends its token without a promise. A bucket
 * that has refilled is forgotten (a bucket never seen is full), so memory
 * follows the addresses and apps active in the last moments; beyond
 * MAX_BUCKETS the oldest are forgotten too, which can only let requests through.
 */
export class MemoryBucketStore implements BucketStore {
  readonly shared = false;
  private readonly buckets = new Map<string, Held>();
  private nextSweep = 0;

  take(key: string, policy: BucketPolicy, want: number, now: number): Grant {
    if (now >= this.nextSweep) this.forgetFull(now);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.forgetOldest();
      bucket = { ...fullBucket(policy, now), fullAt: now };
      this.buckets.set(key, bucket);
    }
    const grant = take(bucket, policy, want, now);
    bucket.fullAt = bucket.at + msUntilFull(bucket.tokens, policy);
    return grant;
  }

  /** How many buckets are held (for tests of the bound). */
  get size(): number {
    return this.buckets.size;
  }

  private forgetFull(now: number): void {
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, bucket] of this.buckets) if (bucket.fullAt <= now) this.buckets.delete(key);
  }

  /** A tenth at once, so that a flood of new addresses costs a sweep per ten thousand of them, not one each. */
  private forgetOldest(): void {
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < MAX_BUCKETS * 0.9) break;
      this.buckets.delete(key);
    }
  }
}
