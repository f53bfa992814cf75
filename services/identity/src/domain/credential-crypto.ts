import { createCipheriv, createDecipheriv, createHash, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * How credentials are kept at rest.
 *
 * - App Secret and bearer token: SHA-256 only. They are 256-bit random values,
 *   so a fast hash is already infeasible to invert or brute-force; a slow
 *   password hash would add nothing but latency on the hot path.
 * - API key: HMAC, Digest and OAuth 1.0a need its plain value inside the
 *   service, so it is encrypted with AES-256-GCM, bound to its app's id as
 *   associated data (a ciphertext copied into another app does not decrypt).
 *   A keyed HMAC-SHA256 of it is the lookup index, so it can be found by value
 *   without the database ever holding anything usable on its own.
 *
 * Both keys derive from the one configured key with HKDF, so each is used for
 * exactly one purpose. They are kept as KeyObjects: node 24 takes a Buffer
 * key to createHmac or createDecipheriv about 12 µs slower than a KeyObject
 * (it tries the Buffer as a KeyObject first; bench/secret-keys.mjs), and the
 * plain API key is decrypted on every HMAC, Digest and OAuth 1.0a request.
 */
export class CredentialCrypto {
  private readonly encryptionKey: KeyObject;
  private readonly lookupKey: KeyObject;

  constructor(masterKey: Buffer) {
    if (masterKey.length < 32) throw new Error('the credential key must be at least 32 bytes');
    this.encryptionKey = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'sandbox/identity/api-key-encryption/v1', 32)));
    this.lookupKey = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'sandbox/identity/api-key-lookup/v1', 32)));
  }

  /** SHA-256, base64url: the stored form of App Secrets and bearer tokens. */
  static hash(value: string): string {
    return createHash('sha256').update(value, 'utf8').digest('base64url');
  }

  /** The keyed lookup hash of an API key. */
  lookup(apiKey: string): string {
    return createHmac('sha256', this.lookupKey).update(apiKey, 'utf8').digest('base64url');
  }

  /** "v1.<iv>.<ciphertext>.<tag>", base64url parts; the version leaves room for a key rotation. */
  encrypt(plain: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  decrypt(sealed: string, boundTo: string): string {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || body === undefined || !tag) throw new Error('unrecognised ciphertext format');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Constant-time equality of two digests (or any strings); unequal lengths are simply unequal. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
