import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { percentEncode } from './encoding';

/** HMAC-SHA1 (RFC 5849 3.4.2, what every client uses), HMAC-SHA256 (the common extension), PLAINTEXT (3.4.4). */
export const SIGNATURE_METHODS = ['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT'] as const;
export type SignatureMethod = (typeof SIGNATURE_METHODS)[number];

export const isSignatureMethod = (value: string): value is SignatureMethod => (SIGNATURE_METHODS as readonly string[]).includes(value);

/** RFC 5849 3.4.2 and 3.4.4: the key is the consumer secret and the token secret, each percent-encoded, joined by "&" (which stays when the token secret is empty). */
export const signingKey = (consumerSecret: string, tokenSecret: string) => `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`;

/** The signature a client should send (before the percent-encoding of transport): base64 HMAC of the base string, or the key itself for PLAINTEXT. */
export function sign(method: SignatureMethod, baseString: string, consumerSecret: string, tokenSecret: string): string {
  const key = signingKey(consumerSecret, tokenSecret);
  switch (method) {
    case 'HMAC-SHA1':
      return createHmac('sha1', key).update(baseString, 'utf8').digest('base64');
    case 'HMAC-SHA256':
      return createHmac('sha256', key).update(baseString, 'utf8').digest('base64');
    case 'PLAINTEXT':
      return key;
  }
}

/**
 * Equality without an early exit and without revealing the expected length:
 * both sides are hashed to 32 bytes first, then compared in constant time.
 */
export function sameSecret(received: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(received), digest(expected));
}
