import { createHash, createHmac, randomBytes, type KeyObject } from 'node:crypto';
import { deriveSecretKey } from '../derived-keys';
import { sameText } from './text';

/** How long a nonce may be answered; later, a right answer gets a fresh challenge with stale=true. */
export const NONCE_LIFETIME_MS = 5 * 60_000;
/** How far in the future a nonce's issue time may lie: replicas whose clocks differ by up to this accept each other's nonces. */
export const NONCE_CLOCK_TOLERANCE_MS = 60_000;

/**
 * The key that signs nonces and opaque values, derived from the sandbox's
 * signing key (derived-keys.ts), so every replica given the same
 * JWT_SIGNING_KEY accepts every other's nonces.
 */
export const nonceKey = (privateKey: KeyObject): KeyObject => deriveSecretKey(privateKey, 'playground digest nonce v1');

const mac = (key: KeyObject, text: string) => createHmac('sha256', key).update(text, 'utf8').digest().subarray(0, 16).toString('base64url');
/** Which realm a nonce was issued for, without writing the realm into it. */
const realmTag = (realm: string) => createHash('sha256').update(realm, 'utf8').digest().subarray(0, 6).toString('base64url');

/**
 * A nonce is self-contained, not stored: "<issued ms>.<random>.<realm tag>.<mac>",
 * 128 random bits, the first 48 bits of SHA-256 of the realm, and an
 * HMAC-SHA256 (truncated to 128 bits) over the rest. Only characters allowed
 * unescaped in a quoted-string (digits, base64url, dots).
 */
export function mintNonce(key: KeyObject, realm: string, issuedAt: number): string {
  const body = `${issuedAt}.${randomBytes(16).toString('base64url')}.${realmTag(realm)}`;
  return `${body}.${mac(key, `nonce:${body}`)}`;
}

/** The opaque value sent with a nonce, which the client returns unchanged (RFC 7616 3.3); derived, so not stored either. */
export const opaqueFor = (key: KeyObject, nonce: string) => mac(key, `opaque:${nonce}`);

export type OpenedNonce = { ok: true; issuedAt: number; expiresAt: number; realmMatches: boolean } | { ok: false };

/** Whether this sandbox issued the nonce (any realm), when, and whether for `realm`. */
export function openNonce(key: KeyObject, nonce: string, realm: string): OpenedNonce {
  const parts = /^(\d{1,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]{22})$/.exec(nonce);
  if (!parts) return { ok: false };
  const body = `${parts[1]}.${parts[2]}.${parts[3]}`;
  if (!sameText(mac(key, `nonce:${body}`), parts[4])) return { ok: false };
  const issuedAt = Number(parts[1]);
  return { ok: true, issuedAt, expiresAt: issuedAt + NONCE_LIFETIME_MS, realmMatches: parts[3] === realmTag(realm) };
}
