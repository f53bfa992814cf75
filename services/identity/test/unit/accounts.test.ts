import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTVerifyGetKey } from 'jose';
import { refusalOf } from '@sandbox/testing';
import { AccountService } from '../../src/domain/accounts';
import { PasswordHasher } from '../../src/domain/passwords';
import { SessionTokens } from '../../src/domain/session-tokens';
import { SignInThrottle } from '../../src/domain/sign-in-throttle';
import type { SignUpPolicy } from '../../src/domain/sign-up-policy';
import { MemorySessionStore } from '../../src/stores/memory-session-store';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { signInLimiters } from '../../src/stores/sign-in-limiters';

const ISSUER = 'https://idp.example.test';
const HERE = '192.0.2.10';
const ATTACKER = '203.0.113.66';


describe('AccountService', () => {
  let now: Date;
  let users: MemoryUserStore;
  let sessions: MemorySessionStore;
  let accounts: AccountService;
  let waits: number[];
  const build = (hasher = new PasswordHasher({ log2N: 10 }), signUp?: SignUpPolicy) => {
    const clock = () => now;
    return new AccountService({
      users,
      sessions,
      throttle: new SignInThrottle(signInLimiters(), async (ms) => void waits.push(ms)),
      hasher,
      tokens: new SessionTokens(randomBytes(32), 3600, { issuer: ISSUER, audience: 'portal', keys: idpKeys }, clock),
      signUp,
      now: clock,
    });
  };
  let idpKeys: JWTVerifyGetKey;
  let idpPrivate: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    idpPrivate = pair.privateKey;
    idpKeys = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), alg: 'ES256' }] });
  });

  beforeEach(() => {
    now = new Date('2030-01-01T00:00:00Z');
    users = new MemoryUserStore();
    sessions = new MemorySessionStore();
    waits = [];
    accounts = build();
  });

  const externalToken = (sub: string, email?: string) =>
    new SignJWT(email ? { email } : {})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setAudience('portal')
      .setSubject(sub)
      .setExpirationTime(Math.floor(now.getTime() / 1000) + 600)
      .sign(idpPrivate);

  it('when a person registers, then the account holds only a password hash and a working session is returned', async () => {
    const { user, session } = await accounts.register(' Ada@Example.com ', 'correct horse');
    expect(user).toMatchObject({ email: 'ada@example.com', provider: 'password' });
    const stored = await users.findById(user.id);
    expect(stored?.passwordHash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(stored)).not.toContain('correct horse');
    expect(session.expiresAt.toISOString()).toBe('2030-01-01T01:00:00.000Z');
    await expect(accounts.verifySession(session.token)).resolves.toMatchObject({ user: { id: user.id, email: 'ada@example.com' }, operator: false });
  });

  describe('the sign-up policy', () => {
    it('when sign-up is closed, then a password sign-up is refused, saying what to do; existing accounts still sign in', async () => {
      await accounts.register('ada@example.com', 'correct horse');
      const closed = build(undefined, { mode: 'closed', localSignIn: true });
      expect(await refusalOf(closed.register('bob@example.com', 'correct horse'))).toEqual({
        status: 7,
        code: 'signup_closed',
        message: expect.stringMatching(/closed on this sandbox: ask whoever runs it for access, or sign in through its identity provider/),
      });
      await expect(closed.login('ada@example.com', 'correct horse', HERE)).resolves.toMatchObject({ user: { email: 'ada@example.com' } });
      expect(await users.findByKey('password:bob@example.com')).toBeUndefined();
    });

    it('when sign-up is kept to domains, then only those exact domains may sign up, and the refusal names them', async () => {
      const domain = build(undefined, { mode: 'domain', domains: ['example.edu'], localSignIn: true });
      await expect(domain.register('Ada@Example.EDU', 'correct horse')).resolves.toMatchObject({ user: { email: 'ada@example.edu' } });
      for (const email of ['bob@example.org', 'bob@student.example.edu']) {
        expect(await refusalOf(domain.register(email, 'correct horse'))).toMatchObject({ code: 'signup_domain_not_allowed', message: expect.stringContaining('example.edu') });
      }
    });

    it('when local sign-in is off, then a password sign-in is refused before anything is counted; the identity provider still signs people in', async () => {
      await accounts.register('ada@example.com', 'correct horse');
      const idpOnly = build(undefined, { mode: 'closed', localSignIn: false });
      expect(await refusalOf(idpOnly.login('ada@example.com', 'correct horse', HERE))).toMatchObject({ status: 7, code: 'local_sign_in_disabled' });
      await expect(idpOnly.verifySession(await externalToken('sub-1', 'carol@example.com'))).resolves.toMatchObject({ user: { email: 'carol@example.com' } });
    });
  });

  it('when the email is already registered (in any case), then email_taken', async () => {
    await accounts.register('ada@example.com', 'correct horse');
    expect(await refusalOf(accounts.register('ADA@example.com', 'another pass'))).toMatchObject({ status: 6, code: 'email_taken' });
  });

  it('when the password is too short, then nothing is written', async () => {
    expect((await refusalOf(accounts.register('ada@example.com', 'short'))).code).toBe('password_too_short');
    expect(await users.findByKey('password:ada@example.com')).toBeUndefined();
  });

  it('when signing in with the right password, then a new session; a wrong password and an unknown email get the same refusal', async () => {
    await accounts.register('ada@example.com', 'correct horse');
    const { session } = await accounts.login('ADA@example.com', 'correct horse', HERE);
    await expect(accounts.verifySession(session.token)).resolves.toMatchObject({ user: { email: 'ada@example.com' } });
    const wrong = await refusalOf(accounts.login('ada@example.com', 'wrong horse', HERE));
    const unknown = await refusalOf(accounts.login('nobody@example.com', 'correct horse', HERE));
    expect(wrong).toEqual({ status: 16, code: 'invalid_credentials', message: 'The email or password is not correct.' });
    expect(unknown).toEqual(wrong);
  });

  it('when five sign-ins from one address fail, then that address is refused (even with the right password), and so is it for an unknown email', async () => {
    await accounts.register('ada@example.com', 'correct horse');
    for (let i = 0; i < 5; i++) expect((await refusalOf(accounts.login('ada@example.com', 'wrong horse', ATTACKER))).code).toBe('invalid_credentials');
    const locked = await refusalOf(accounts.login('ada@example.com', 'correct horse', ATTACKER));
    expect(locked).toMatchObject({ status: 8, code: 'too_many_attempts', retryAfterSeconds: 900 });
    expect(locked.message).toMatch(/for this email from your address; try again in 900 s/);

    for (let i = 0; i < 5; i++) await refusalOf(accounts.login('ghost@example.com', 'whatever1', ATTACKER));
    expect((await refusalOf(accounts.login('ghost@example.com', 'whatever1', ATTACKER))).code).toBe('too_many_attempts');
  });

  it('when an attacker fails many times on the owner\'s email, then the owner signs in from their own address, slowed down by at most 2 s', async () => {
    await accounts.register('ada@example.com', 'correct horse');
    for (let i = 0; i < 5; i++) await refusalOf(accounts.login('ada@example.com', `guess ${i}`, ATTACKER));
    // The attacker moves on to more addresses: more slow-down for the account, never a lock-out.
    for (let i = 0; i < 40; i++) expect((await refusalOf(accounts.login('ada@example.com', `guess ${i}`, `198.18.0.${i}`))).code).toBe('invalid_credentials');
    waits = [];
    const { user } = await accounts.login('ADA@example.com', 'correct horse', HERE);
    expect(user.email).toBe('ada@example.com');
    expect(waits).toEqual([2000]);
    // Signing in did not clear the attacker's count.
    expect((await refusalOf(accounts.login('ada@example.com', 'correct horse', ATTACKER))).code).toBe('too_many_attempts');
  });

  it('when password hashing is busy, then the refused attempts are not counted against the address or the email', async () => {
    await accounts.register('ada@example.com', 'correct horse');
    const busy = build(new PasswordHasher({ log2N: 10, concurrency: 1, maxWaiting: 0 }));
    const burst = await Promise.all(Array.from({ length: 6 }, () => refusalOf(busy.login('ada@example.com', 'wrong horse', ATTACKER))));
    const codes = burst.map((r) => r.code);
    expect(codes).toContain('server_busy');
    const failed = codes.filter((code) => code === 'invalid_credentials').length;
    for (let i = failed; i < 5; i++) expect((await refusalOf(busy.login('ada@example.com', 'wrong horse', ATTACKER))).code).toBe('invalid_credentials');
    expect((await refusalOf(busy.login('ada@example.com', 'wrong horse', ATTACKER))).code).toBe('too_many_attempts');
  });

  it('when signed out, then the token no longer verifies (session_ended), and signing out again is refused', async () => {
    const { session } = await accounts.register('ada@example.com', 'correct horse');
    await accounts.logout(session.token);
    expect((await refusalOf(accounts.verifySession(session.token))).code).toBe('session_ended');
    expect((await refusalOf(accounts.logout(session.token))).code).toBe('session_ended');
  });

  it('when one of two sessions is signed out, then the other still works', async () => {
    await accounts.register('ada@example.com', 'correct horse');
    const first = await accounts.login('ada@example.com', 'correct horse', HERE);
    const second = await accounts.login('ada@example.com', 'correct horse', HERE);
    await accounts.logout(first.session.token);
    await expect(accounts.verifySession(second.session.token)).resolves.toMatchObject({ user: { email: 'ada@example.com' } });
  });

  it('when the session has expired, then session_expired, and the cleanup removes its record', async () => {
    const { session } = await accounts.register('ada@example.com', 'correct horse');
    now = new Date(now.getTime() + 3601_000);
    expect((await refusalOf(accounts.verifySession(session.token))).code).toBe('session_expired');
    await accounts.cleanup();
    expect(await sessions.deleteExpired(now)).toBe(0); // already swept
  });

  it('when no token or an absurdly long one is sent, then a clear refusal', async () => {
    expect((await refusalOf(accounts.verifySession(''))).code).toBe('session_required');
    expect((await refusalOf(accounts.verifySession('a'.repeat(9000)))).code).toBe('invalid_session');
  });

  it('when a trusted issuer user is first seen, then one account is created for them and reused after', async () => {
    const token = await externalToken('sub-7', 'grace@corp.example');
    const [{ user: a }, { user: b }] = await Promise.all([accounts.verifySession(token), accounts.verifySession(token)]);
    expect(a.id).toBe(b.id);
    expect(a).toMatchObject({ provider: ISSUER, email: 'grace@corp.example', key: `${ISSUER}#sub-7` });
    expect((await accounts.verifySession(await externalToken('sub-7'))).user.id).toBe(a.id);
    expect((await accounts.verifySession(await externalToken('sub-8'))).user.id).not.toBe(a.id);
  });

  it('when a trusted issuer token is signed out, then that token is refused until it expires', async () => {
    const token = await externalToken('sub-9');
    await accounts.verifySession(token);
    await accounts.logout(token);
    expect((await refusalOf(accounts.verifySession(token))).code).toBe('session_ended');
    await expect(accounts.verifySession(await externalToken('sub-9'))).resolves.toBeDefined();
  });
});
