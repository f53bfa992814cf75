import { createHash } from 'node:crypto';
import type { LoginAttempts } from '../stores/login-attempt-store';

/**
 * Repeated failed sign-ins for one email are slowed down: five failures within
 * the last quarter of an hour are free, then each further attempt must wait
 * 1 s, 2 s, 4 s, ... (at most 15 minutes) after the latest failure. Counted per email whether or not
 * the account exists, so the lock-out cannot be used to find accounts.
 */
export const THROTTLE = { freeFailures: 5, windowMs: 15 * 60_000, maxDelayMs: 15 * 60_000 } as const;

export const throttleKey = (email: string): string => createHash('sha256').update(`login:${email}`).digest('base64url');

/** Milliseconds until the next attempt is allowed; 0 when it is allowed now. */
export function lockedForMs(attempts: LoginAttempts | undefined, now: Date): number {
  if (!attempts || attempts.failures < THROTTLE.freeFailures) return 0;
  const since = now.getTime() - attempts.lastFailureAt.getTime();
  if (since > THROTTLE.windowMs) return 0;
  const delay = Math.min(1000 * 2 ** (attempts.failures - THROTTLE.freeFailures), THROTTLE.maxDelayMs);
  return Math.max(0, delay - since);
}

export const windowStart = (now: Date): Date => new Date(now.getTime() - THROTTLE.windowMs);
