/**
 * ioredis options for every service's Redis client (oauth's store,
 * identity's sign-in counters). While Redis is away a command fails at once
 * (a 503 naming Redis, and health reports it) instead of waiting past the
 * caller's deadline, and the client is back within a quarter second of
 * Redis's return (ioredis README, "Auto-reconnect" and "Offline Queue";
 * RedisOptions):
 * - enableOfflineQueue: false: no queue while disconnected, refused at once;
 * - maxRetriesPerRequest: 0 and autoResendUnfulfilledCommands: false: a
 *   command whose connection broke under it fails at once and is never sent
 *   again after a reconnect, when its caller has been told it failed (a
 *   refresh token marked used behind its holder's back would look like a
 *   replay and end the family);
 * - commandTimeout: a Redis that holds the connection but does not answer
 *   (frozen, partitioned) fails the command within half a second too (a
 *   healthy one answers in a millisecond);
 * - retryStrategy: reconnect attempts every 50, 100... ms, at most 250 ms
 *   apart (ioredis's default grows to 2 s), each a refused connect while
 *   Redis is down, so cheap.
 * openRedis (redis-client.ts) applies them to every client.
 */
export const REDIS_FAIL_FAST = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  commandTimeout: 500,
  connectTimeout: 2000,
  retryStrategy: (attempt: number) => Math.min(attempt * 50, 250),
} as const;
