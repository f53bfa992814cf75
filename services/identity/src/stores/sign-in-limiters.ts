import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { SIGN_IN_POLICY, type SignInLimiters } from '../domain/sign-in-throttle';

/** Redis keys: sandbox:identity:sign-in:<counter>:<sha-256 of the address and/or email>. */
export const SIGN_IN_KEY_PREFIX = 'sandbox:identity:sign-in';

/** The per-account count never refuses (it only slows down); this many points is "never". */
const UNLIMITED = 1_000_000_000;

/**
 * The sign-in counters as rate-limiter-flexible limiters: in Redis when
 * identity has one (RateLimiterRedis: each increment is one Lua script, atomic
 * across replicas, and expires with its window), otherwise in this process's
 * memory (RateLimiterMemory: the embedded default, one process).
 */
export function signInLimiters(redis?: Redis): SignInLimiters {
  const limiter = (name: string, points: number, duration: number): RateLimiterAbstract => {
    const keyPrefix = `${SIGN_IN_KEY_PREFIX}:${name}`;
    // rejectIfRedisNotReady: refuse at once while Redis is away (503) rather than wait for a reconnect.
    return redis
      ? new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration, rejectIfRedisNotReady: true })
      : new RateLimiterMemory({ keyPrefix, points, duration });
  };
  const { addressAndAccount, address, account } = SIGN_IN_POLICY;
  return {
    addressAndAccount: limiter('address-account', addressAndAccount.failures, addressAndAccount.windowSeconds),
    address: limiter('address', address.failures, address.windowSeconds),
    account: limiter('account', UNLIMITED, account.windowSeconds),
  };
}
