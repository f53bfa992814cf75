import Redis from 'ioredis';

/**
 * Identity's one Redis connection (REDIS_URL): it holds the sign-in counters,
 * which must be shared by every replica. Calls fail fast while Redis is away
 * instead of queueing past the caller's deadline; health reports the outage
 * and ioredis keeps reconnecting in the background.
 */
export class RedisConnection {
  private constructor(readonly client: Redis) {}

  static async connect(url: string): Promise<RedisConnection> {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
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
