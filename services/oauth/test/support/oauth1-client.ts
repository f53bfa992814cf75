import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';

export type SignatureMethod = 'HMAC-SHA1' | 'HMAC-SHA256' | 'PLAINTEXT';

/**
 * A client's signer: the oauth-1.0a library (not our code), its timestamp
 * read from `seconds` (the test's clock) and, when given, a fixed nonce.
 */
export function oauth1Signer(consumer: { key: string; secret: string }, method: SignatureMethod, seconds: () => number, nonce?: string): OAuth {
  const signer = new OAuth({
    consumer,
    signature_method: method,
    hash_function: (base, key) =>
      method === 'PLAINTEXT'
        ? key
        : createHmac(method === 'HMAC-SHA1' ? 'sha1' : 'sha256', key)
            .update(base)
            .digest('base64'),
  });
  const clockable = signer as unknown as { getTimeStamp(): number; getNonce(): string };
  clockable.getTimeStamp = seconds;
  if (nonce) clockable.getNonce = () => nonce;
  return signer;
}
