import type { Redis } from 'ioredis';
import { isRedisReplyError, openRedis, storeUnavailable } from '@sandbox/runtime';
import type { EphemeralStore, StoreEntry } from './ephemeral-store';

/** Keys asked for per SCAN step: big enough to be quick, small enough not to hold Redis up. */
const SCAN_COUNT = 500;

/** Ephemeral values in Redis, shared by every oauth replica. */
export class RedisEphemeralStore implements EphemeralStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'sandbox:oauth:',
  ) {
    // While Redis is away a call fails at once as a 503 naming Redis (REDIS_FAIL_FAST, redisCall).
    this.redis = openRedis(url, { lazyConnect: true });
    this.redis.on('error', () => undefined); // surfaced through ping() and failed calls, not as an unhandled event
  }

  async connect(): Promise<void> {
    await this.redis.connect();
  }

  async put(key: string, value: string, ttlMs: number, options: { onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    const result = await redisCall(() =>
      options.onlyIfAbsent ? this.redis.set(this.prefix + key, value, 'PX', ttlMs, 'NX') : this.redis.set(this.prefix + key, value, 'PX', ttlMs),
    );
    return result === 'OK';
  }

  async get(key: string): Promise<string | undefined> {
    return (await redisCall(() => this.redis.get(this.prefix + key))) ?? undefined;
  }

  async take(key: string): Promise<string | undefined> {
    return (await redisCall(() => this.redis.getdel(this.prefix + key))) ?? undefined;
  }

  async delete(key: string): Promise<void> {
    await redisCall(() => this.redis.del(this.prefix + key));
  }

  async ping(): Promise<void> {
    await redisCall(() => this.redis.ping());
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /**
   * SCAN over this store's prefix (never KEYS, which holds Redis up for the
   * whole keyspace), a step at a time: a step's keys that match are deleted
   * as they are, the rest are read in one pipeline and deleted, in another,
   * when their value matches. DEL's own count says how many were still there.
   */
  async forgetMatching(matches: (text: string) => boolean): Promise<number> {
    const pattern = `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    let forgotten = 0;
    do {
      const [next, keys] = await redisCall(() => this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT));
      cursor = next;
      const doomed: string[] = [];
      const unread: string[] = [];
      // The key as the caller wrote it, without this store's prefix.
      for (const key of keys) (matches(key.slice(this.prefix.length)) ? doomed : unread).push(key);
      if (unread.length) {
        const values = await redisCall(() => this.redis.pipeline(unread.map((key) => ['get', key])).exec());
        unread.forEach((key, i) => {
          const [error, value] = values?.[i] ?? [null, null];
          // A key holding something other than a string (not ours) answers WRONGTYPE: left alone.
          if (!error && typeof value === 'string' && matches(value)) doomed.push(key);
        });
      }
      if (doomed.length) {
        const deleted = await redisCall(() => this.redis.pipeline(doomed.map((key) => ['del', key])).exec());
        for (const [error, count] of deleted ?? []) if (!error) forgotten += Number(count);
      }
    } while (cursor !== '0');
    return forgotten;
  }

  async putIfGreater(key: string, value: number, ttlMs: number): Promise<boolean> {
    return (await redisCall(() => this.redis.eval(PUT_IF_GREATER, 1, this.prefix + key, String(value), String(ttlMs)))) === 1;
  }

  async claimAndPut(claim: StoreEntry, then: StoreEntry): Promise<boolean> {
    const keys = [this.prefix + claim.key, this.prefix + then.key];
    return (await redisCall(() => this.redis.eval(CLAIM_AND_PUT, 2, ...keys, claim.value, String(claim.ttlMs), then.value, String(then.ttlMs)))) === 1;
  }
}

/**
 * Refusals with which Redis says it cannot take commands now rather than
 * that the command is wrong: still loading its data, out of memory
 * (noeviction: a write is refused rather than a nonce evicted), unable to
 * persist, busy with a script, or a replica that may not write.
 */
const NOT_NOW_REPLIES = /^(LOADING|OOM|MISCONF|BUSY|READONLY|MASTERDOWN) /;

/**
 * Runs one Redis command and turns "Redis cannot answer" into UNAVAILABLE
 * naming Redis (503 at the gateway, with Retry-After): no connection (the
 * client refuses at once, REDIS_FAIL_FAST), a connection lost with
 * the command on it, no answer within the command timeout, or one of the
 * refusals above. Any other reply error is a bug and stays as it is (a
 * logged INTERNAL).
 */
async function redisCall<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (isRedisReplyError(error) && !NOT_NOW_REPLIES.test((error as Error).message)) throw error;
    throw storeUnavailable('redis_unavailable', 'Redis');
  }
}

/**
 * One script, so the comparison and the write are one step on the Redis
 * server: two replicas presenting the same count cannot both see it as new.
 * A value that is not a number counts as greater than any (refuse, never overwrite).
 */
/** A script runs whole or not at all (and reaches the append-only file as one transaction). */
const CLAIM_AND_PUT = `
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 0 end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return 1
`;

const PUT_IF_GREATER = `
local current = redis.call('GET', KEYS[1])
if current then
  local n = tonumber(current)
  if n == nil or n >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;
