import type Redis from 'ioredis';
import type { BucketStore } from './bucket-store';
import type { BucketPolicy, Grant } from './token-bucket';

/**
 * token-bucket.ts's `take`, line for line, run in Redis so that taking is one
 * atomic step however many gateways take at once. The caller's clock is the
 * bucket's (so a test can move it); a clock behind the bucket's refills
 * nothing. The key lives until the bucket would be full again (then it is as
 * good as absent), plus a second.
 * KEYS[1]: the bucket. ARGV: now (ms), tokens a millisecond, burst, tokens wanted.
 * Returns the tokens granted and, as text (Lua numbers reach the client as
 * integers), the fractional tokens left.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = math.min(burst, tonumber(held[1]) or burst)
local at = tonumber(held[2]) or now
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate)
  at = now
end
local granted = math.max(0, math.min(want, math.floor(tokens)))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
return { granted, string.format('%.17g', tokens) }
`;

/** The buckets in Redis, shared by every gateway replica; each gateway leases tokens from them in chunks (leased-budget.ts). */
export class RedisBucketStore implements BucketStore {
  readonly shared = true;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'sandbox:gateway:bucket:',
  ) {}

  async take(key: string, policy: BucketPolicy, want: number, now: number): Promise<Grant> {
    // One keyspace for both kinds of budget: the policy's name keeps an App ID and an address apart.
    const [granted, left] = (await this.redis.eval(
      TAKE,
      1,
      `${this.prefix}${policy.name}:${key}`,
      String(now),
      String(policy.perSecond / 1000),
      String(policy.burst),
      String(want),
    )) as [number, string];
    return { granted, left: Number(left) };
  }
}
