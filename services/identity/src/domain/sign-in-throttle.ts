import { createHash } from 'node:crypto';
import { setTimeout as sleepFor } from 'node:timers/promises';
import * as ipaddr from 'ipaddr.js';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { resourceExhausted, UNAVAILABLE_RETRY_AFTER_SECONDS, unavailable, type AppError } from '@sandbox/runtime';

/**
 * Failed sign-ins are counted three ways (docs/security.md, "Sign-in
 * throttling"). The two per-address counts refuse (429 with Retry-After); the
 * per-account count only slows down, so failures from other addresses can
 * never lock the owner out. Windows are rate-limiter-flexible's fixed windows:
 * one opens at the first attempt counted for its key and lasts windowSeconds.
 */
export const SIGN_IN_POLICY = {
  /** One address, one email: the sixth failure within 15 minutes is refused until the window ends. */
  addressAndAccount: { failures: 5, windowSeconds: 15 * 60 },
  /** One address, any emails: generous, since a classroom often shares one address. */
  address: { failures: 100, windowSeconds: 60 * 60 },
  /** One email, from anywhere: after 5 failures each attempt waits 250 ms, doubling, at most 2 s. */
  account: { freeFailures: 5, windowSeconds: 15 * 60, firstDelayMs: 250, maxDelayMs: 2000 },
} as const;

/** The per-account wait before a password is checked, given the failures counted for that email so far. */
export function slowDownMs(failures: number): number {
  const { freeFailures, firstDelayMs, maxDelayMs } = SIGN_IN_POLICY.account;
  if (failures < freeFailures) return 0;
  return Math.min(firstDelayMs * 2 ** (failures - freeFailures), maxDelayMs);
}

/** The three counters, rate-limiter-flexible limiters (Redis, or memory); stores/sign-in-limiters.ts builds them. */
export interface SignInLimiters {
  addressAndAccount: RateLimiterAbstract;
  address: RateLimiterAbstract;
  account: RateLimiterAbstract;
}

/**
 * The key an address is counted under. IPv4-mapped IPv6 counts as its IPv4
 * address; IPv6 counts by its /64, the block one subscriber usually gets, so
 * a client cannot step through its own 2^64 addresses. A port some proxies
 * append ("203.0.113.7:51234", "[2001:db8::1]:443") is dropped, or every
 * connection would count as a new address. An empty address (a caller that
 * did not say) is one shared "unknown" address.
 */
export function addressKey(clientAddress: string): string {
  const trimmed = clientAddress.trim();
  if (trimmed === '') return 'unknown';
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(trimmed) ?? /^\[([^\]]+)\]:\d{1,5}$/.exec(trimmed);
  const raw = withPort?.[1] ?? trimmed.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.IPv4.isValidFourPartDecimal(raw)) return ipaddr.IPv4.parse(raw).toString();
  if (ipaddr.IPv6.isValid(raw)) {
    const address = ipaddr.IPv6.parse(raw);
    if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
    return `${address.parts
      .slice(0, 4)
      .map((part) => part.toString(16))
      .join(':')}::/64`;
  }
  return raw;
}

// Hashed, so the store holds no email or address in plain form and every key
// has one length. Not a secret: anyone can hash a guess.
const hashed = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('base64url');

const tooMany = (scope: string, res: RateLimiterRes): AppError => {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return resourceExhausted('too_many_attempts', `Too many failed sign-ins ${scope}; try again in ${seconds} s.`).retryAfter(seconds);
};
// Only a shared store can fail (in memory, counting cannot), and that store is Redis.
const storeDown = (): AppError =>
  unavailable(
    'throttle_unavailable',
    'Sign-in is unavailable for a moment: failed attempts cannot be counted while Redis is unavailable; try again shortly.',
  ).retryAfter(UNAVAILABLE_RETRY_AFTER_SECONDS);

/** One sign-in on its way through: settled as failed (counts kept), succeeded or abandoned. */
export interface SignInAttempt {
  /** How long this attempt was made to wait before its password was checked. */
  readonly delayedMs: number;
  /** The password was wrong or the email unknown: every count keeps this failure. */
  failed(): void;
  /** Signed in: this attempt is no failure, and this address's count for this email starts again. Other addresses' counts stay. */
  succeeded(): Promise<void>;
  /** Not decided (server_busy, database down): nothing is counted. */
  abandoned(): Promise<void>;
}

/**
 * Counts are reserved before the password is checked and given back when the
 * attempt turns out not to be a failure. Each reservation is one atomic
 * increment in the store (rate-limiter-flexible's Lua script in Redis), so
 * concurrent attempts on any number of replicas cannot all slip in under the
 * limit, as a read-check-then-write would let them.
 */
export class SignInThrottle {
  constructor(
    private readonly limiters: SignInLimiters,
    private readonly sleep: (ms: number) => Promise<unknown> = (ms) => sleepFor(ms),
  ) {}

  async admit(email: string, clientAddress: string): Promise<SignInAttempt> {
    const address = addressKey(clientAddress);
    const keys = { address: hashed(address), addressAndAccount: hashed(address, email), account: hashed(email) };
    const { limiters } = this;
    const giveBack = (names: (keyof typeof keys)[]) => Promise.allSettled(names.map((name) => limiters[name].reward(keys[name], 1))).then(() => undefined);

    await reserve(limiters.address, keys.address, 'from your address');
    try {
      await reserve(limiters.addressAndAccount, keys.addressAndAccount, 'for this email from your address');
    } catch (error) {
      // This attempt checks no password, so it is no failure of the address.
      await giveBack(['address']);
      throw error;
    }
    let failuresSoFar: number;
    try {
      failuresSoFar = (await limiters.account.consume(keys.account, 1)).consumedPoints - 1;
    } catch {
      await giveBack(['address', 'addressAndAccount']);
      throw storeDown();
    }
    const delayedMs = slowDownMs(failuresSoFar);
    if (delayedMs > 0) await this.sleep(delayedMs);

    return {
      delayedMs,
      failed: () => undefined,
      succeeded: async () => {
        await Promise.allSettled([
          limiters.address.reward(keys.address, 1),
          limiters.account.reward(keys.account, 1),
          limiters.addressAndAccount.delete(keys.addressAndAccount),
        ]);
      },
      abandoned: () => giveBack(['address', 'addressAndAccount', 'account']),
    };
  }
}

async function reserve(limiter: RateLimiterAbstract, key: string, scope: string): Promise<void> {
  try {
    await limiter.consume(key, 1);
  } catch (rejection) {
    // rate-limiter-flexible rejects with its result when the limit is reached, with an Error when the store fails.
    if (!(rejection instanceof RateLimiterRes)) throw storeDown();
    // A refused attempt checks no password, so it is no failure: only failures count (and the window is not moved).
    await limiter.reward(key, 1).catch(() => undefined);
    throw tooMany(scope, rejection);
  }
}
