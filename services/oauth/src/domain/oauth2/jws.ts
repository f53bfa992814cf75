import { sign } from 'node:crypto';
import type { TokenKey } from '../signing-key';

/**
 * Signs `payload` as a JWS in compact serialisation (RFC 7515 7.1) with one
 * of the access-token keys, straight through node:crypto (OpenSSL): RS256 is
 * RSASSA-PKCS1-v1_5 with SHA-256, ES256 ECDSA P-256 with SHA-256 and the
 * signature as r || s (RFC 7518 3.4, OpenSSL's "ieee-p1363"), EdDSA Ed25519
 * (RFC 8037). Why not jose's SignJWT, which the service used before: jose 6
 * signs through WebCrypto, an asynchronous job per token that cost more than
 * the ES256 signature itself (docs/decisions.md, "Access tokens"); the
 * signing here is three base64url parts and one call, of our own claims with
 * our own key. Verification stays with jose (access-token.ts), where the
 * untrusted input is parsed; the unit tests verify what this makes with jose.
 */
export function signCompactJws(key: Pick<TokenKey, 'alg' | 'kid' | 'privateKey'>, typ: string, payload: object): string {
  const input = `${base64url({ alg: key.alg, typ, kid: key.kid })}.${base64url(payload)}`;
  const data = Buffer.from(input);
  const signature =
    key.alg === 'EdDSA'
      ? sign(null, data, key.privateKey)
      : sign('sha256', data, key.alg === 'ES256' ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' } : key.privateKey);
  return `${input}.${signature.toString('base64url')}`;
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
