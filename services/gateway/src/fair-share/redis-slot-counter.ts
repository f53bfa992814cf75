import type Redis from 'ioredis';
import type { Held, SlotClaim, SlotCounter } from './slot-counter';

/**
 * Takes a slot under every key or none, in one atomic step. Each key is a
 * sorted set of the slots held, scored by when each lapses: a slot whose
 * gateway crashed before giving it back lapses on its own, while the others
 * keep counting (a plain INCR/DECR counter with a TTL would keep a crashed
 * gateway's slots for as long as new ones kept arriving).
 * KEYS: one set per claim. ARGV: now (ms), the lapse time (ms), the slot's
 * id, then each claim's cap. Returns 0 and each count, or the 1-based index
 * of the first claim at its cap. The set itself expires a lapse time after
 * its newest slot (relative to Redis's clock, not the caller's).
 */
const HOLD = `
local now, lapse, id = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local counts = {}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local count = redis.call('ZCARD', key) + 1
  if count > tonumber(ARGV[3 + i]) then return { i } end
  counts[i] = count
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + lapse, id)
  redis.call('PEXPIRE', key, lapse)
end
return { 0, unpack(counts) }
`;

/** The slow requests in flight through every gateway, in Redis. */
export class RedisSlotCounter implements SlotCounter {
  constructor(
    private readonly redis: Redis,
    /** The longest a slot is held: a request still running then stops counting. */
    private readonly lapseMs: number,
    private readonly prefix = 'sandbox:gateway:slow:',
  ) {}

  async hold(claims: readonly SlotClaim[], id: string, now: number): Promise<Held> {
    const keys = claims.map((claim) => this.prefix + claim.key);
    const [full, ...inUse] = (await this.redis.eval(
      HOLD,
      keys.length,
      ...keys,
      String(now),
      String(this.lapseMs),
      id,
      ...claims.map((c) => String(c.cap)),
    )) as number[];
    return full ? { held: false, full: full - 1 } : { held: true, inUse };
  }

  release(claims: readonly SlotClaim[], id: string): void {
    // Best effort: a slot not given back (Redis away) lapses on its own.
    for (const claim of claims) this.redis.zrem(this.prefix + claim.key, id).catch(() => undefined);
  }
}
