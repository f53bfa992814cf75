import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { resourceExhausted } from '@sandbox/runtime';
import { BoundedConcurrency } from './bounded-concurrency';

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))));
}

const KEY_LENGTH = 32;

export interface PasswordHasherOptions {
  /** log2 of scrypt's N: 15 (N = 32768, r = 8: 32 MiB and about 80 ms per hash here). Tests pass less. */
  log2N?: number;
  /** Hashes computed at once: about one per core, since each keeps a core busy. */
  concurrency?: number;
  /** Hashes that may wait for a turn; more are refused with 429 and Retry-After. */
  maxWaiting?: number;
}

/**
 * Portal passwords, stored only as scrypt hashes with a per-password salt:
 * "scrypt$<log2 N>$<r>$<p>$<salt>$<hash>". The parameters travel with the hash,
 * so raising the cost later still verifies old hashes. Hashing is bounded
 * (bounded-concurrency.ts): a script signing in as random emails in a loop,
 * or a load test, gets 429 with Retry-After instead of queueing every
 * learner's sign-in behind it.
 */
export class PasswordHasher {
  private dummy: Promise<string> | undefined;
  private readonly log2N: number;
  private readonly turns: BoundedConcurrency;

  constructor(options: PasswordHasherOptions = {}) {
    this.log2N = options.log2N ?? 15;
    this.turns = new BoundedConcurrency(options.concurrency ?? 2, options.maxWaiting ?? 32);
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.scrypt(password, salt, KEY_LENGTH, this.options(this.log2N, 8, 1));
    return ['scrypt', this.log2N, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parts = stored.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [log2N, r, p] = parts.slice(1, 4).map(Number);
    const expected = Buffer.from(parts[5], 'base64url');
    const key = await this.scrypt(password, Buffer.from(parts[4], 'base64url'), expected.length, this.options(log2N, r, p));
    return key.length === expected.length && timingSafeEqual(key, expected);
  }

  /**
   * Does the same work as checking a real password, so an unknown email takes
   * as long to refuse as a wrong password.
   */
  async verifyAgainstNothing(password: string): Promise<false> {
    // Made once; made again if that attempt was refused while busy.
    this.dummy ??= this.hash(randomBytes(16).toString('hex')).catch((error: unknown) => {
      this.dummy = undefined;
      throw error;
    });
    await this.verify(password, await this.dummy);
    return false;
  }

  private scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
    return this.turns.run(
      () => scryptAsync(password, salt, keylen, options),
      () => resourceExhausted('server_busy', 'Too many sign-ins are being checked right now; try again in a second.').retryAfter(1),
    );
  }

  private options(log2N: number, r: number, p: number): ScryptOptions {
    const N = 2 ** log2N;
    return { N, r, p, maxmem: 256 * N * r };
  }
}
