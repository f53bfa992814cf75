import type { OutgoingHttpHeaders } from 'node:http';
import type { BucketPolicy } from './token-bucket';

/**
 * One budget a request spent, as the IETF RateLimit fields carry it
 * (draft-ietf-httpapi-ratelimit-headers-11, May 2026, sections 3 and 4;
 * https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/):
 * both fields are Structured Field Lists (RFC 9651) of Items whose value is
 * the policy's name as a String, e.g.
 *   RateLimit-Policy: "app";q=100;w=2
 *   RateLimit: "app";r=42;t=1
 */
export interface LimitItem {
  /** The policy's name: app, address, app-slow, address-slow. */
  readonly name: string;
  /** Its RateLimit-Policy item. */
  readonly policy: string;
  /** Its RateLimit item. */
  readonly limit: string;
}

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

/** Writes the items of a request's budgets as its answer's two fields (one List each, items in the order spent). */
export function writeLimitFields(headers: OutgoingHttpHeaders, items: readonly LimitItem[]): void {
  let policy = items[0]!.policy;
  let limit = items[0]!.limit;
  for (let i = 1; i < items.length; i++) {
    policy += `, ${items[i]!.policy}`;
    limit += `, ${items[i]!.limit}`;
  }
  headers['RateLimit-Policy'] = policy;
  headers.RateLimit = limit;
}
