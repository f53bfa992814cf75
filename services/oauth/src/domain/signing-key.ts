import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

/**
 * The one RS256 key of the sandbox: it signs OAuth 2.0 access tokens (RFC
 * 9068) and the playground's RS256 JWTs, and is published as a JWKS. Its
 * `kid` is its RFC 7638 thumbprint, so every replica given the same key names
 * it the same way, and a rotated key gets a new name.
 */
export interface SigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly kid: string;
  /** The public key as PEM (SPKI). */
  readonly publicPem: string;
  /** The public key as a JWK with kid, alg and use: the JWKS's one entry. */
  readonly publicJwk: JWK;
}

/** From configuration (cluster mode), or a fresh key for this process (the embedded default). */
export async function loadSigningKey(pem: string | undefined): Promise<SigningKey> {
  const privateKey = pem ? createPrivateKey(pem) : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const publicKey = createPublicKey(privateKey);
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return {
    privateKey,
    publicKey,
    kid,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicJwk: { ...jwk, kid, alg: 'RS256', use: 'sig' },
  };
}
