import { randomBytes } from 'node:crypto';
import { AccountService } from '../../src/domain/accounts';
import { PasswordHasher } from '../../src/domain/passwords';
import { SessionTokens } from '../../src/domain/session-tokens';
import { SignInThrottle } from '../../src/domain/sign-in-throttle';
import { normalizeEmail } from '../../src/domain/validation';
import { MemorySessionStore } from '../../src/stores/memory-session-store';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { signInLimiters } from '../../src/stores/sign-in-limiters';
import { refusalOf } from '@sandbox/testing';

/*
 * One canonical identity per account (docs/security.md, "Account identity").
 * Inputs map to one account only through the documented steps: surrounding
 * white space, Unicode NFC, and lower case. Each group below is one account,
 * and the comment says which step joins its members; every other pair of
 * accepted inputs is a different account.
 */
const SAME_ACCOUNT: { why: string; inputs: string[] }[] = [
  { why: 'case and surrounding space', inputs: ['ada@example.com', 'ADA@EXAMPLE.COM', ' Ada@Example.com ', 'ada@EXAMPLE.com'] },
  {
    why: 'NFC: composed é (U+00E9) and e + combining acute (U+0301)',
    inputs: ['jos\u00e9@example.com', 'jose\u0301@example.com', 'JOS\u00c9@example.com', 'JOSE\u0301@example.com'],
  },
  { why: 'NFC: the Kelvin sign (U+212A) is canonically the letter K', inputs: ['kelvin@example.com', '\u212Aelvin@example.com'] },
  {
    why: 'NFC: the Angstrom sign (U+212B) is canonically Å',
    inputs: ['\u00e5ngstr\u00f6m@example.com', 'A\u030angstro\u0308m@example.com', '\u212Bngstr\u00f6m@example.com'],
  },
  { why: 'lower case: capital sharp s (U+1E9E) lowers to ß', inputs: ['stra\u00dfe@example.de', 'STRA\u1E9EE@example.de'] },
  { why: 'lower case: İ (U+0130) lowers to i + combining dot above', inputs: ['\u0130stanbul@example.com', 'i\u0307stanbul@example.com'] },
  { why: 'NFC and lower case in a Unicode domain', inputs: ['ada@b\u00fccher.example', 'ada@B\u00dcCHER.example', 'ada@bu\u0308cher.example'] },
  // Everything below is an account of its own.
  { why: 'no accent is not an accent', inputs: ['jose@example.com'] },
  { why: 'another domain', inputs: ['ada@example.org'] },
  { why: 'dots are kept', inputs: ['a.da@example.com'] },
  { why: '+tags are kept', inputs: ['ada+news@example.com'] },
  { why: 'ß is not folded to ss', inputs: ['strasse@example.de'] },
  { why: 'no compatibility mapping (NFKC): full-width a', inputs: ['\uff41da@example.com'] },
  { why: 'Cyrillic а is not Latin a', inputs: ['\u0430da@example.com'] },
  { why: 'dotless ı is not i', inputs: ['\u0131stanbul@example.com'] },
  { why: 'plain i without the dot above', inputs: ['istanbul@example.com'] },
  { why: 'no IDNA: the xn-- form of a Unicode domain', inputs: ['ada@xn--bcher-kva.example'] },
];

describe('account identity', () => {
  it('when inputs differ only by a documented step, then they are one account; otherwise never', () => {
    const canonical = SAME_ACCOUNT.map((group) => new Set(group.inputs.map(normalizeEmail)));
    canonical.forEach((forms, i) => expect({ why: SAME_ACCOUNT[i].why, forms: forms.size }).toEqual({ why: SAME_ACCOUNT[i].why, forms: 1 }));
    const all = canonical.map((forms) => [...forms][0]);
    expect(new Set(all).size).toBe(all.length);
  });

  it('when two local parts are different canonical text, then they are never one account (normalising is the identity on canonical forms)', () => {
    // A fixed pseudo-random corpus: the same every run, so a failure can be reproduced.
    const alphabet = [...'abcdefghijklmnopqrstuvwxyz0123456789', '\u00e9', '\u00fc', '\u00df', '\u00f8', '\u0436', '\u4e2d', '\u0131', '+', '-', '_'];
    let seed = 20300101;
    const next = (n: number) => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n) | 0;
    };
    const seen = new Map<string, string>();
    for (let i = 0; i < 5000; i++) {
      const local = Array.from({ length: 1 + next(12) }, () => alphabet[next(alphabet.length)]).join('');
      const email = `${local}@example.com`;
      const account = normalizeEmail(email);
      expect(account).toBe(email);
      const earlier = seen.get(account);
      if (earlier !== undefined) expect(earlier).toBe(email);
      seen.set(account, email);
    }
    expect(seen.size).toBeGreaterThan(4000);
  });

  it('when the same person registers with the decomposed spelling, then email_taken, and either spelling signs in', async () => {
    const accounts = new AccountService({
      users: new MemoryUserStore(),
      sessions: new MemorySessionStore(),
      throttle: new SignInThrottle(signInLimiters(), async () => undefined),
      hasher: new PasswordHasher({ log2N: 10 }),
      tokens: new SessionTokens(randomBytes(32), 3600, undefined),
    });
    const { user } = await accounts.register('jos\u00e9@example.com', 'correct horse');
    expect(await refusalOf(accounts.register('JOSE\u0301@Example.com', 'other horse'))).toMatchObject({ code: 'email_taken' });
    await expect(accounts.register('jose@example.com', 'third horse')).resolves.toBeDefined();
    expect((await accounts.login('jose\u0301@example.com', 'correct horse', '192.0.2.1')).user.id).toBe(user.id);
  });
});
