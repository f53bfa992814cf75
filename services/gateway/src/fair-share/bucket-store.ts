import type { MaybePromise } from '../maybe-async';
import type { BucketPolicy, Grant } from './token-bucket';

/**
 * Where the token buckets live: in this process (memory-bucket-store.ts), or
 * in Redis, shared by every gateway replica (redis-bucket-store.ts). One
 * operation: take up to `want` whole tokens from the bucket at `key`, after
 * refilling it for the time since it was last touched.
 */
export interface BucketStore {
  /**
   * True when other gateways take from the same buckets: each then leases a
   * chunk of tokens at a time (leased-budget.ts), because asking Redis for
   * each request would cost tens of microseconds apiece.
   */
  readonly shared: boolean;
  take(key: string, policy: BucketPolicy, want: number, now: number): MaybePromise<Grant>;
}
