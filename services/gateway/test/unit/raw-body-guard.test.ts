import { randomBytes } from 'node:crypto';
import { CredentialGuard } from '../../src/guard/credential-guard';

// Secret-shaped strings are built at run time, so no literal one sits in the repository.
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const awsKey = () => ['AK', 'IA'].join('') + Array.from(randomBytes(16), (b) => UPPER[b % UPPER.length]).join('');
const awsSecret = () => randomBytes(30).toString('base64');
const guard = new CredentialGuard();
const scan = (body: string | Buffer, type?: string) => guard.scanBody(Buffer.isBuffer(body) ? body : Buffer.from(body), type)?.id;

describe('credential guard: a body forwarded as sent (scanBody)', () => {
  it('when a text, JSON or form body holds a secret as it is, then it is found whatever the Content-Type says', () => {
    const key = awsKey();
    for (const type of ['text/plain', 'application/json', 'application/x-www-form-urlencoded', 'application/octet-stream', undefined]) {
      expect(scan(`{"key": "${key}"}`, type)).toBe('aws-access-key-id');
    }
  });

  it('when JSON escapes hide the secret, then the decoded JSON is scanned (any +json type too)', () => {
    const key = awsKey();
    const escaped = `{"key": "\\u0041${key.slice(1)}"}`;
    expect(scan(escaped, 'text/plain')).toBeUndefined();
    expect(scan(escaped, 'application/json; charset=utf-8')).toBe('aws-access-key-id');
    expect(scan(escaped, 'application/vnd.api+json')).toBe('aws-access-key-id');
  });

  it('when percent-encoding hides the secret, then the decoded form is scanned', () => {
    const key = awsKey();
    const encoded = `note=x&key=${[...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`;
    expect(scan(encoded, 'text/plain')).toBeUndefined();
    expect(scan(encoded, 'Application/X-WWW-Form-Urlencoded')).toBe('aws-access-key-id');
  });

  it('when an AWS secret key is named by its field, then a JSON key or a form name names it', () => {
    const secret = awsSecret();
    expect(scan(JSON.stringify({ credentials: { SecretAccessKey: secret } }), 'application/json')).toBe('aws-secret-access-key');
    expect(scan(`aws_secret_access_key=${encodeURIComponent(secret)}`, 'application/x-www-form-urlencoded')).toBe('aws-secret-access-key');
  });

  it('when a Basic credential in a JSON string hides a key as its password, then it is found decoded', () => {
    const basic = `Basic ${Buffer.from(`user:${awsKey()}`).toString('base64')}`;
    expect(scan(JSON.stringify({ authorization: basic }), 'application/json')).toBe('aws-access-key-id');
  });

  it('when the body is binary or in another charset, then an ASCII secret in it is still found', () => {
    const key = awsKey();
    const binary = Buffer.concat([randomBytes(64).map((b) => b | 0x80), Buffer.from(` ${key} `), Buffer.from([0xff, 0xfe, 0x00])]);
    expect(scan(binary, 'image/png')).toBe('aws-access-key-id');
    expect(scan(Buffer.from(`clé ${key}`, 'latin1'), 'text/plain; charset=iso-8859-1')).toBe('aws-access-key-id');
  });

  it('when a JSON or form body does not parse, then its text is still scanned and nothing throws', () => {
    const key = awsKey();
    expect(scan(`{"key": "${key}"`, 'application/json')).toBe('aws-access-key-id');
    expect(scan('{"note": "no secret"', 'application/json')).toBeUndefined();
    expect(scan('%E0%A4%A=broken', 'application/x-www-form-urlencoded')).toBeUndefined();
  });

  it("when a body holds only the sandbox's own values, or is shorter than any secret, then nothing is found", () => {
    const own = { apiKey: `ak_${randomBytes(24).toString('base64url')}`, bearer: `bt_${randomBytes(32).toString('base64url')}`, note: 'hello' };
    expect(scan(JSON.stringify(own), 'application/json')).toBeUndefined();
    expect(scan(new URLSearchParams(own).toString(), 'application/x-www-form-urlencoded')).toBeUndefined();
    expect(scan('short', 'text/plain')).toBeUndefined();
    expect(scan(Buffer.alloc(0))).toBeUndefined();
  });
});
