import type { BucketPolicy } from './token-bucket';
import type { LimitItem } from '../http/rate-limit-fields';

// The pipeline writes the items on every answer (http/rate-limit-fields.ts); the fair-share limits make them here.
export { writeLimitFields, type LimitItem } from '../http/rate-limit-fields';

const policyItems = new WeakMap<BucketPolicy, string>();

/**
 * A token bucket as a quota policy: q is the burst (what may be spent at
 * once) and w the seconds an empty bucket takes to refill it (burst/rate,
 * rounded up: w is a whole number of seconds, at least 1), so q/w is the
 * sustained rate. 50 a second with bursts of 100 reads "app";q=100;w=2.
 */
export function bucketItem(policy: BucketPolicy, remaining: number, resetSeconds: number): LimitItem {
  let item = policyItems.get(policy);
  if (item === undefined) {
    item = `"${policy.name}";q=${policy.burst};w=${Math.max(1, Math.ceil(policy.burst / policy.perSecond))}`;
    policyItems.set(policy, item);
  }
  return { name: policy.name, policy: item, limit: `"${policy.name}";r=${remaining};t=${resetSeconds}` };
}

/** A concurrency cap, in the draft's own unit for it ("concurrent-requests", section 3.1.2); r is the slots left. */
export function concurrencyItem(name: string, cap: number, inUse: number): LimitItem {
  return { name, policy: `"${name}";q=${cap};qu="concurrent-requests"`, limit: `"${name}";r=${Math.max(0, cap - inUse)}` };
}
