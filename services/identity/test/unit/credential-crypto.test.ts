import { randomBytes } from 'node:crypto';
import { CredentialCrypto, digestsEqual } from '../../src/domain/credential-crypto';
import { newSecret } from '../../src/domain/credentials';

describe('CredentialCrypto', () => {
  const crypto = new CredentialCrypto(randomBytes(32));

  it('when an API key is sealed, then it opens again only with the same app id and key', () => {
    const apiKey = newSecret('apiKey');
    const sealed = crypto.encrypt(apiKey, 'app-1');
    expect(sealed).not.toContain(apiKey.slice(3));
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(crypto.decrypt(sealed, 'app-1')).toBe(apiKey);
    expect(() => crypto.decrypt(sealed, 'app-2')).toThrow();
    expect(() => new CredentialCrypto(randomBytes(32)).decrypt(sealed, 'app-1')).toThrow();
  });

  it('when the same key is sealed twice, then the ciphertexts differ (fresh IV)', () => {
    const apiKey = newSecret('apiKey');
    expect(crypto.encrypt(apiKey, 'a')).not.toBe(crypto.encrypt(apiKey, 'a'));
  });

  it('when a ciphertext is tampered with, then it does not open', () => {
    const sealed = crypto.encrypt(newSecret('apiKey'), 'a');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2], 'base64url');
    body[0] ^= 1;
    parts[2] = body.toString('base64url');
    expect(() => crypto.decrypt(parts.join('.'), 'a')).toThrow();
    expect(() => crypto.decrypt('v2.x.y.z', 'a')).toThrow(/format/);
  });

  it('when two services hold different keys, then their lookup hashes of one API key differ', () => {
    const apiKey = newSecret('apiKey');
    expect(crypto.lookup(apiKey)).toBe(crypto.lookup(apiKey));
    expect(new CredentialCrypto(randomBytes(32)).lookup(apiKey)).not.toBe(crypto.lookup(apiKey));
    expect(crypto.lookup(apiKey)).not.toBe(CredentialCrypto.hash(apiKey));
  });

  it('the SHA-256 form is stable and does not contain the value', () => {
    const secret = newSecret('appSecret');
    expect(CredentialCrypto.hash(secret)).toBe(CredentialCrypto.hash(secret));
    expect(CredentialCrypto.hash(secret)).toHaveLength(43);
    expect(CredentialCrypto.hash(secret)).not.toContain(secret.slice(3, 10));
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => new CredentialCrypto(randomBytes(16))).toThrow(/32 bytes/);
  });

  it('digestsEqual compares exactly', () => {
    expect(digestsEqual('abc', 'abc')).toBe(true);
    expect(digestsEqual('abc', 'abd')).toBe(false);
    expect(digestsEqual('abc', 'abcd')).toBe(false);
  });
});
