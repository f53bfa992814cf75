import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

const derived = new WeakMap<KeyObject, Map<string, Buffer>>();

/**
 * A key for one use (32 bytes unless told), derived from the sandbox's RS256
 * private key: HKDF-SHA256 (RFC 5869) of its PKCS#8 DER, salt
 * "training-sandbox", and `info` naming the use. So every replica given the
 * same JWT_SIGNING_KEY derives the same key and nothing new needs
 * configuring; the derived key cannot be turned back into the RSA key, and
 * each `info` gets a key of its own. Derived once per key, use and length.
 */
export function deriveKey(privateKey: KeyObject, info: string, length = 32): Buffer {
  let uses = derived.get(privateKey);
  if (!uses) {
    uses = new Map();
    derived.set(privateKey, uses);
  }
  const name = `${info}\u0000${length}`;
  let key = uses.get(name);
  if (!key) {
    const material = privateKey.export({ type: 'pkcs8', format: 'der' });
    key = Buffer.from(hkdfSync('sha256', material, 'training-sandbox', info, length));
    uses.set(name, key);
  }
  return key;
}

const secretKeys = new WeakMap<KeyObject, Map<string, KeyObject>>();

/**
 * deriveKey's key for `info` as a KeyObject, for HMAC: node 24 takes a
 * Buffer key to createHmac about 12 µs slower than a KeyObject
 * (bench/secret-keys.mjs), and these sign every Digest nonce and OAuth 1.0a
 * token. Made once per key and use.
 */
export function deriveSecretKey(privateKey: KeyObject, info: string): KeyObject {
  let uses = secretKeys.get(privateKey);
  if (!uses) {
    uses = new Map();
    secretKeys.set(privateKey, uses);
  }
  let key = uses.get(info);
  if (!key) {
    key = createSecretKey(deriveKey(privateKey, info));
    uses.set(info, key);
  }
  return key;
}
