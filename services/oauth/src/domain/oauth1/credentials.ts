import { createHmac, randomBytes, type KeyObject } from 'node:crypto';
import { deriveSecretKey } from '../derived-keys';
import { sameSecret } from './signature';

/**
 * Token secrets, verifiers and access tokens are derived with HMAC-SHA256
 * from one key, itself derived (HKDF) from the sandbox's signing key, which
 * every oauth replica shares (JWT_SIGNING_KEY). So Redis never holds a secret
 * a client could sign with, leg 2 writes nothing, and access tokens are
 * checked by their MAC and expiry instead of being stored: a load test of the
 * three legs cannot grow Redis beyond the 10-minute request-token records.
 */
export type SecretKey = KeyObject;

export const secretKeyOf = (privateKey: KeyObject): SecretKey => deriveSecretKey(privateKey, 'oauth1 token secrets, verifiers and access tokens v1');

/** A value no one without the key can compute; labels keep the derived values apart. */
const mac = (key: SecretKey, label: string, value: string) => createHmac('sha256', key).update(`${label}\0${value}`, 'utf8').digest('base64url');

export const REQUEST_TOKEN_PREFIX = 'o1rt_';
export const ACCESS_TOKEN_PREFIX = 'o1at_';
export const REQUEST_TOKEN_PATTERN = /^o1rt_[A-Za-z0-9_-]{43}$/;

/** A temporary token (leg 1): 256 random bits, base64url, so it travels in a URL unescaped. */
export const newRequestToken = () => REQUEST_TOKEN_PREFIX + randomBytes(32).toString('base64url');

/** Its secret (the token secret of legs 1 and 3). */
export const requestTokenSecret = (key: SecretKey, token: string) => mac(key, 'request token secret', token);

/** The verifier leg 2 answers for a token: bound to it by construction, the same however often it is asked for (132 bits). */
export const verifierFor = (key: SecretKey, token: string) => mac(key, 'verifier', token).slice(0, 22);

/** What an access token says, readable by anyone who base64url-decodes it (the MAC makes it unforgeable, not secret). */
export interface AccessTokenClaims {
  /** The App ID (consumer key) it was issued to. */
  app: string;
  /** Issued at and expiry, Unix seconds. */
  iat: number;
  exp: number;
  /** Tells two tokens of the same second apart. */
  jti: string;
}

export function newAccessToken(key: SecretKey, claims: Omit<AccessTokenClaims, 'jti'>): { token: string; secret: string; claims: AccessTokenClaims } {
  const full: AccessTokenClaims = { ...claims, jti: randomBytes(16).toString('base64url') };
  const body = Buffer.from(JSON.stringify(full), 'utf8').toString('base64url');
  const token = `${ACCESS_TOKEN_PREFIX}${body}.${mac(key, 'access token', body)}`;
  return { token, secret: accessTokenSecret(key, token), claims: full };
}

export const accessTokenSecret = (key: SecretKey, token: string) => mac(key, 'access token secret', token);

/** The claims of an access token this sandbox issued (any replica with the same key), or why it is not one. */
export function readAccessToken(key: SecretKey, token: string): { ok: true; claims: AccessTokenClaims } | { ok: false; why: 'not_access_token' | 'forged' } {
  const match = /^o1at_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return { ok: false, why: 'not_access_token' };
  if (!sameSecret(match[2], mac(key, 'access token', match[1]))) return { ok: false, why: 'forged' };
  try {
    const claims = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8')) as AccessTokenClaims;
    if (typeof claims.app !== 'string' || !Number.isInteger(claims.exp) || !Number.isInteger(claims.iat)) return { ok: false, why: 'forged' };
    return { ok: true, claims };
  } catch {
    return { ok: false, why: 'forged' };
  }
}
