import type { Redis, RedisOptions } from 'ioredis';
import { REDIS_FAIL_FAST } from './redis-fail-fast';

/**
 * A new ioredis client with REDIS_FAIL_FAST's options, then `options`: the
 * one way a service opens Redis. ioredis is
 * required on the first call rather than imported, so a process without
 * REDIS_URL (the embedded default) never loads it: about 10 MiB of each of
 * three processes at rest (docs/decisions.md, "Memory at rest"). Types only
 * are imported above; they cost nothing at run time.
 */
export function openRedis(url: string, options: RedisOptions = {}): Redis {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  return new Client(url, { ...REDIS_FAIL_FAST, ...options });
}

/** A reply Redis sent that refuses the command (ioredis's ReplyError), told by name so the check needs no ioredis loaded. */
export function isRedisReplyError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError';
}
