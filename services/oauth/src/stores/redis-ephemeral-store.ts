import Redis from 'ioredis';
import type { EphemeralStore } from './ephemeral-store';

/** Ephemeral values in Redis, shared by every oauth replica. */
export class RedisEphemeralStore implements EphemeralStore {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix = 'sandbox:oauth:') {
    // Fail calls fast while Redis is away instead of queueing them for ever;
    // health reports the outage and ioredis keeps reconnecting in the background.
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
    this.redis.on('error', () => undefined); // surfaced through ping() and failed calls, not as an unhandled event
  }

  async connect(): Promise<void> {
    await this.redis.connect();
  }

  async put(key: string, value: string, ttlMs: number, options: { onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    const result = options.onlyIfAbsent
      ? await this.redis.set(this.prefix + key, value, 'PX', ttlMs, 'NX')
      : await this.redis.set(this.prefix + key, value, 'PX', ttlMs);
    return result === 'OK';
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.prefix + key)) ?? undefined;
  }

  async take(key: string): Promise<string | undefined> {
    return (await this.redis.getdel(this.prefix + key)) ?? undefined;
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  async putIfGreater(key: string, value: number, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(PUT_IF_GREATER, 1, this.prefix + key, String(value), String(ttlMs))) === 1;
  }
}

/**
 * One script, so the comparison and the write are one step on the Redis
 * server: two replicas presenting the same count cannot both see it as new.
 * A value that is not a number counts as greater than any (refuse, never overwrite).
 */
const PUT_IF_GREATER = `
local current = redis.call('GET', KEYS[1])
if current then
  local n = tonumber(current)
  if n == nil or n >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;
