import { hkdfSync, type KeyObject } from 'node:crypto';

const derived = new WeakMap<KeyObject, Map<string, Buffer>>();

/**
 * A 32-byte key for one use, derived from the sandbox's RS256 private key:
 * HKDF-SHA256 (RFC 5869) of its PKCS#8 DER, salt "training-sandbox", and
 * `info` naming the use. So every replica given the same JWT_SIGNING_KEY
 * derives the same key and nothing new needs configuring; the derived key
 * cannot be turned back into the RSA key, and each `info` gets a key of its
 * own. Derived once per key and use.
 */
export function deriveKey(privateKey: KeyObject, info: string): Buffer {
  let uses = derived.get(privateKey);
  if (!uses) {
    uses = new Map();
    derived.set(privateKey, uses);
  }
  let key = uses.get(info);
  if (!key) {
    const material = privateKey.export({ type: 'pkcs8', format: 'der' });
    key = Buffer.from(hkdfSync('sha256', material, 'training-sandbox', info, 32));
    uses.set(info, key);
  }
  return key;
}
