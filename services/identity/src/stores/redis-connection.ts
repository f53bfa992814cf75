import type { Redis } from 'ioredis';
import { openRedis } from '@sandbox/runtime';

/**
 * Identity's one Redis connection (REDIS_URL): it holds the sign-in counters,
 * which must be shared by every replica. While Redis is away a command fails
 * at once instead of waiting past the caller's deadline, health reports the
 * outage, and the client is back within a quarter second of Redis's return
 * (REDIS_FAIL_FAST says why each option).
 */
export class RedisConnection {
  private constructor(readonly client: Redis) {}

  static async connect(url: string): Promise<RedisConnection> {
    const client = openRedis(url, { lazyConnect: true });
    client.on('error', () => undefined); // surfaced through ping() and failed calls, not as an unhandled event
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw error;
    }
    return new RedisConnection(client);
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
