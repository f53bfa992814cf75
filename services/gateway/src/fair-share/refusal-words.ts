import { resourceExhausted, type AppError } from '@sandbox/runtime';
import type { Route } from '../http/route';
import type { BucketPolicy } from './token-bucket';

/** A number as people write it: at most two decimals, none when whole. */
const shown = (n: number) => String(Math.round(n * 100) / 100);

/** "50 requests a second", or for a slow rate "one request every 20 s". */
export function rateWords(policy: BucketPolicy): string {
  if (policy.perSecond < 1) return `one request every ${shown(1 / policy.perSecond)} s`;
  return `${shown(policy.perSecond)} request${policy.perSecond === 1 ? '' : 's'} a second`;
}

const WHO = {
  app: 'This app',
  address: 'Requests from your address (whichever app, or none, makes them)',
} as const;

/**
 * 429 rate_limited: which budget ran out, its policy, when to retry, and how
 * to back off, so the refusal itself teaches what a client should do.
 */
export function rateLimited(policy: BucketPolicy, retryAfterSeconds: number): AppError {
  return resourceExhausted(
    'rate_limited',
    `${WHO[policy.name]} may make ${rateWords(policy)} (bursts of ${shown(policy.burst)}), and that budget is spent. ` +
      `Wait ${retryAfterSeconds} s (Retry-After) and retry, backing off exponentially with jitter if refused again. ` +
      'Every answer says what is left: RateLimit ("r" requests now, "t" seconds until more) and RateLimit-Policy.',
  ).retryAfter(retryAfterSeconds);
}

/**
 * The routes that take a slow-request slot, in words, from the rows that
 * say they are slow (route.ts `slow`, and `slowWhen` for one that is slow
 * only sometimes): "/playground/timeout, /playground/response with a delay,
 * /playground/batch". Listed by path, from Z to A: the order the refusal,
 * docs/errors.md and the README have always named them in.
 */
export function slowRoutesWords(rows: readonly Route[]): string {
  return rows
    .filter((row) => row.slow)
    .map((row) => ({ path: row.path, words: row.slowWhen ? `${row.path} ${row.slowWhen}` : row.path }))
    .sort((a, b) => (a.path < b.path ? 1 : a.path > b.path ? -1 : 0))
    .map((row) => row.words)
    .join(', ');
}

/**
 * 429 too_many_slow_requests: no Retry-After, because no wait is known: a
 * slot comes free when one of the caller's own slow requests is answered.
 * `slowRoutes` names the routes that take a slot (slowRoutesWords).
 */
export function tooManySlowRequests(who: 'app' | 'address', cap: number, slowRoutes: string): AppError {
  const whose = who === 'app' ? 'This app already has' : 'Your address already has';
  return resourceExhausted(
    'too_many_slow_requests',
    `${whose} ${cap} slow requests in flight (${slowRoutes}), the most it may hold at once. Wait for one of them to be answered, then retry.`,
  );
}
