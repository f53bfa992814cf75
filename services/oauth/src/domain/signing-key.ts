import { createECDH, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { deriveKey } from './derived-keys';

/** The algorithms OAuth 2.0 access tokens may be signed with (OAUTH_ACCESS_TOKEN_ALG); ES256 is the default. */
export const ACCESS_TOKEN_ALGS = ['ES256', 'EdDSA', 'RS256'] as const;
export type AccessTokenAlg = (typeof ACCESS_TOKEN_ALGS)[number];

/** One key that signs access tokens: its JWS alg, its RFC 7638 thumbprint as kid, and its JWKS entry. */
export interface TokenKey {
  readonly alg: AccessTokenAlg;
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The public key as a JWK with kid, alg and use: its entry in the JWKS. */
  readonly publicJwk: JWK;
}

/**
 * The keys of OAuth 2.0 access tokens: the one this process signs with
 * (OAUTH_ACCESS_TOKEN_ALG), and every key a token may be verified with, which
 * is exactly what /.well-known/jwks.json publishes. Verification accepts a
 * token only if its kid names one of these keys and its alg is that key's
 * (a fixed allow-list: never `none`, never HS256 keyed with a public key).
 */
export interface AccessTokenKeys {
  readonly signing: TokenKey;
  /** By kid: the signing key, the RSA key (tokens of RS256 replicas during a rolling upgrade, or of RS256 before it) and the ES256 key. */
  readonly verifying: ReadonlyMap<string, TokenKey>;
  /** The JWK Set (RFC 7517 5): the signing key first, then the others. */
  readonly jwks: { keys: JWK[] };
}

/**
 * The sandbox's keys. The RSA key (JWT_SIGNING_KEY) signs the playground's
 * RS256 JWTs (the spec's), RS256 access tokens when configured, and is the
 * root every other key is derived from (HKDF, derived-keys.ts): the ES256 and
 * EdDSA keys of access tokens, OAuth 1.0a's and Digest's keys. Its `kid` is its
 * RFC 7638 thumbprint, so every replica given the same key names it the same
 * way, and a rotated key gets a new name.
 */
export interface SigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly kid: string;
  /** The public key as PEM (SPKI). */
  readonly publicPem: string;
  /** The RSA public key as a JWK with kid, alg RS256 and use. */
  readonly publicJwk: JWK;
  /** The keys of OAuth 2.0 access tokens. */
  readonly accessTokens: AccessTokenKeys;
}

/** The order of the P-256 group (FIPS 186-5, SEC 2): a private key is an integer in [1, n-1]. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** PKCS#8 DER of an Ed25519 private key (RFC 8410 7) up to its 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The ES256 key, derived from the RSA key: 48 bytes of HKDF output reduced
 * into [1, n-1] (FIPS 186-5 A.2.1, "extra random bits": 128 bits more than
 * the order, so the scalar's bias is below 2^-128), then the public point.
 * HKDF output is a uniformly random key as long as the RSA key stays secret,
 * so the scalar is as good as a freshly generated one, and every replica
 * given the same JWT_SIGNING_KEY computes the same one.
 */
export function deriveEs256Key(rsaPrivateKey: KeyObject): KeyObject {
  const okm = deriveKey(rsaPrivateKey, 'oauth2 access tokens ES256 P-256 v1', 48);
  const scalar = (BigInt(`0x${okm.toString('hex')}`) % (P256_ORDER - 1n)) + 1n;
  const d = Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(); // 0x04 || x || y, 32 bytes each
  return createPrivateKey({
    key: { kty: 'EC', crv: 'P-256', d: d.toString('base64url'), x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
}

/** The EdDSA (Ed25519) key, derived from the RSA key: any 32 bytes are an Ed25519 seed (RFC 8032 5.1.5), so HKDF's output is used as it is. */
export function deriveEd25519Key(rsaPrivateKey: KeyObject): KeyObject {
  const seed = deriveKey(rsaPrivateKey, 'oauth2 access tokens EdDSA Ed25519 v1', 32);
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

async function tokenKey(alg: AccessTokenAlg, privateKey: KeyObject): Promise<TokenKey> {
  const publicKey = createPublicKey(privateKey);
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return { alg, kid, privateKey, publicKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

/**
 * From configuration (cluster mode), or a fresh RSA key for this process (the
 * embedded default); the access-token keys follow from it. The JWKS always
 * holds the RSA and ES256 keys, so replicas configured RS256 and ES256 (the
 * default) accept each other's tokens during a rolling upgrade or a change of
 * OAUTH_ACCESS_TOKEN_ALG; the Ed25519 key is added only when it signs, so
 * clients that cannot read OKP keys never meet one unless it is chosen.
 */
export async function loadSigningKey(pem: string | undefined, accessTokenAlg: AccessTokenAlg = 'ES256'): Promise<SigningKey> {
  const privateKey = pem ? createPrivateKey(pem) : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const rsa = await tokenKey('RS256', privateKey);
  const es256 = await tokenKey('ES256', deriveEs256Key(privateKey));
  const eddsa = accessTokenAlg === 'EdDSA' ? await tokenKey('EdDSA', deriveEd25519Key(privateKey)) : undefined;
  const signing = { RS256: rsa, ES256: es256, EdDSA: eddsa }[accessTokenAlg] ?? es256;
  const published = [signing, ...[rsa, es256, eddsa].filter((key): key is TokenKey => key !== undefined && key !== signing)];
  return {
    privateKey,
    publicKey: rsa.publicKey,
    kid: rsa.kid,
    publicPem: rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicJwk: rsa.publicJwk,
    accessTokens: {
      signing,
      verifying: new Map(published.map((key) => [key.kid, key])),
      jwks: { keys: published.map((key) => key.publicJwk) },
    },
  };
}
