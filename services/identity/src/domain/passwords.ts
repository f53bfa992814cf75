import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))));
}

const KEY_LENGTH = 32;

/**
 * Portal passwords, stored only as scrypt hashes with a per-password salt:
 * "scrypt$<log2 N>$<r>$<p>$<salt>$<hash>". The parameters travel with the hash,
 * so raising the cost later still verifies old hashes.
 */
export class PasswordHasher {
  private dummy: Promise<string> | undefined;

  /** log2N 15 (N = 32768, r = 8: 32 MiB and tens of milliseconds per hash). Tests may pass less. */
  constructor(private readonly log2N = 15) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await scryptAsync(password, salt, KEY_LENGTH, this.options(this.log2N, 8, 1));
    return ['scrypt', this.log2N, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parts = stored.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [log2N, r, p] = parts.slice(1, 4).map(Number);
    const expected = Buffer.from(parts[5], 'base64url');
    const key = await scryptAsync(password, Buffer.from(parts[4], 'base64url'), expected.length, this.options(log2N, r, p));
    return key.length === expected.length && timingSafeEqual(key, expected);
  }

  /**
   * Does the same work as checking a real password, so an unknown email takes
   * as long to refuse as a wrong password.
   */
  async verifyAgainstNothing(password: string): Promise<false> {
    this.dummy ??= this.hash(randomBytes(16).toString('hex'));
    await this.verify(password, await this.dummy);
    return false;
  }

  private options(log2N: number, r: number, p: number): ScryptOptions {
    const N = 2 ** log2N;
    return { N, r, p, maxmem: 256 * N * r };
  }
}
