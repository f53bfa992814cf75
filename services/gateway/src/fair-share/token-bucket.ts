/** Milliseconds since the epoch; injectable, so tests move time without sleeping. */
export type Clock = () => number;

/**
 * One budget's rule: `perSecond` requests a second on average, and at most
 * `burst` at once (a token bucket that holds `burst` tokens and refills
 * `perSecond` a second). `name` is the policy's name in the RateLimit fields.
 */
export interface BucketPolicy {
  readonly name: 'app' | 'address';
  readonly perSecond: number;
  readonly burst: number;
}

/** A bucket as stored: its tokens (fractional) when last touched. */
export interface BucketState {
  tokens: number;
  at: number;
}

/** What a take from a bucket gave: whole tokens, and what the bucket holds after it. */
export interface Grant {
  granted: number;
  /** Tokens left in the bucket after the grant, fractional. */
  left: number;
}

/** A bucket never seen: full. */
export const fullBucket = (policy: BucketPolicy, now: number): BucketState => ({ tokens: policy.burst, at: now });

/**
 * The token bucket's arithmetic, and the only copy of it in TypeScript: the
 * memory store runs it, and the Redis store's script (redis-bucket-store.ts)
 * is the same lines in Lua. Refills the bucket for the time since it was last
 * touched, then takes up to `want` whole tokens from it (in place: the memory
 * store runs this for every request). A clock that went back refills
 * nothing (two gateways' clocks differ by milliseconds).
 */
export function take(bucket: BucketState, policy: BucketPolicy, want: number, now: number): Grant {
  let tokens = Math.min(policy.burst, bucket.tokens);
  if (now > bucket.at) {
    tokens = Math.min(policy.burst, tokens + ((now - bucket.at) * policy.perSecond) / 1000);
    bucket.at = now;
  }
  const granted = Math.max(0, Math.min(want, Math.floor(tokens)));
  bucket.tokens = tokens - granted;
  return { granted, left: bucket.tokens };
}

/** Milliseconds until a bucket holding `tokens` has `tokens + 1` (or its next whole one, when it holds a fraction). */
export function msUntilNextToken(tokens: number, policy: BucketPolicy): number {
  const missing = 1 - (tokens - Math.floor(tokens));
  return (missing * 1000) / policy.perSecond;
}

/** Milliseconds until a bucket holding `tokens` is full again: after that it is as good as one never seen. */
export function msUntilFull(tokens: number, policy: BucketPolicy): number {
  return (Math.max(0, policy.burst - tokens) * 1000) / policy.perSecond;
}
