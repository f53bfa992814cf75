import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// node:crypto rather than a library: a CSPRNG and SHA-256 are all these need.

/** An authorization code: 256 random bits, base64url (43 characters). */
export const newAuthorizationCode = () => randomBytes(32).toString('base64url');

export const REFRESH_TOKEN_PREFIX = 'rt_';
/** A refresh token: `rt_` and 256 random bits, base64url; opaque, stored only as its hash. */
export const newRefreshToken = () => REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
export const REFRESH_TOKEN_PATTERN = /^rt_[A-Za-z0-9_-]{43}$/;

/** A jti or grant id: 128 random bits, base64url (22 characters). */
export const newId = () => randomBytes(16).toString('base64url');

/**
 * Codes and refresh tokens are stored under their SHA-256, never themselves:
 * reading Redis gives nothing a client could present. They are 256 random
 * bits, so a fast unsalted hash is enough (nothing to brute-force).
 */
export const storageHash = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Equality of two strings without an early exit on the first difference. */
export function sameString(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
