import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTVerifyGetKey } from 'jose';
import { refusalOf } from '@sandbox/testing';
import { AccountService, DELETED_USER_MEMORY_MS, deletedUserRecordId, LAST_SEEN_EVERY_MS } from '../../src/domain/accounts';
import { PasswordHasher } from '../../src/domain/passwords';
import { SessionTokens } from '../../src/domain/session-tokens';
import { SignInThrottle } from '../../src/domain/sign-in-throttle';
import type { OperatorRule } from '../../src/domain/operators';
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
  const build = (hasher = new PasswordHasher({ log2N: 10 }), signUp?: SignUpPolicy, operators?: OperatorRule) => {
    const clock = () => now;
    return new AccountService({
      users,
      sessions,
      throttle: new SignInThrottle(signInLimiters(), async (ms) => void waits.push(ms)),
      hasher,
      tokens: new SessionTokens(randomBytes(32), 3600, { issuer: ISSUER, audience: 'portal', keys: idpKeys }, clock),
      signUp,
      operators,
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
        expect(await refusalOf(domain.register(email, 'correct horse'))).toMatchObject({
          code: 'signup_domain_not_allowed',
          message: expect.stringContaining('example.edu'),
        });
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

  it("when an attacker fails many times on the owner's email, then the owner signs in from their own address, slowed down by at most 2 s", async () => {
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

  describe('remembered sessions (sessionCacheMs)', () => {
    /** Counts the store reads a session check makes. */
    const counting = () => {
      const reads = { sessions: 0, users: 0 };
      const find = sessions.find.bind(sessions);
      const findById = users.findById.bind(users);
      sessions.find = async (...args) => (reads.sessions++, find(...args));
      users.findById = async (...args) => (reads.users++, findById(...args));
      return reads;
    };
    let told: number;
    const remembering = () => {
      told = 0;
      const clock = () => now;
      return new AccountService({
        users,
        sessions,
        throttle: new SignInThrottle(signInLimiters(), async () => undefined),
        hasher: new PasswordHasher({ log2N: 10 }),
        tokens: new SessionTokens(randomBytes(32), 3600, undefined, clock),
        sessionCacheMs: 500,
        onSessionsChange: async () => void told++,
        now: clock,
      });
    };

    it('when a session is checked again within the lifetime, then no store is read; after it, the store is read again', async () => {
      accounts = remembering();
      const { session } = await accounts.register('ada@example.com', 'correct horse');
      const reads = counting();
      await accounts.verifySession(session.token);
      await accounts.verifySession(session.token);
      expect(reads).toEqual({ sessions: 1, users: 1 });
      now = new Date(now.getTime() + 500);
      await accounts.verifySession(session.token);
      expect(reads).toEqual({ sessions: 2, users: 2 });
    });

    it('when a remembered session is signed out, then the next check is refused at once and every replica is told', async () => {
      accounts = remembering();
      const { session } = await accounts.register('ada@example.com', 'correct horse');
      await accounts.verifySession(session.token);
      await accounts.logout(session.token);
      expect(told).toBe(1);
      expect((await refusalOf(accounts.verifySession(session.token))).code).toBe('session_ended');
    });

    it('when another replica says sessions changed, then what this one remembers is read again', async () => {
      accounts = remembering();
      const { user, session } = await accounts.register('ada@example.com', 'correct horse');
      await accounts.verifySession(session.token);
      await users.update(user.id, { disabledAt: now });
      accounts.forgetSessions();
      expect((await refusalOf(accounts.verifySession(session.token))).code).toBe('account_disabled');
    });

    it('when a session is refused, then the refusal is not remembered: the next check reads the store again', async () => {
      accounts = remembering();
      const { user, session } = await accounts.register('ada@example.com', 'correct horse');
      await users.update(user.id, { disabledAt: now });
      expect((await refusalOf(accounts.verifySession(session.token))).code).toBe('account_disabled');
      await users.update(user.id, { disabledAt: null });
      await expect(accounts.verifySession(session.token)).resolves.toMatchObject({ user: { id: user.id } });
    });

    it("when a remembered session's token expires, then it is refused though the session is remembered", async () => {
      accounts = remembering();
      const { session } = await accounts.register('ada@example.com', 'correct horse');
      now = new Date(session.expiresAt.getTime() - 300);
      await accounts.verifySession(session.token);
      now = new Date(session.expiresAt.getTime() + 100);
      expect((await refusalOf(accounts.verifySession(session.token))).code).toBe('session_expired');
    });
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
  describe('operators, disabled and deleted accounts', () => {
    const rule: OperatorRule = { emails: new Set(['ops@example.org']), groups: new Set(['sandbox-operators']), groupsClaim: 'groups' };
    const providerToken = (sub: string, claims: Record<string, unknown>, issuedAt = now) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(ISSUER)
        .setAudience('portal')
        .setSubject(sub)
        .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
        .setExpirationTime(Math.floor(now.getTime() / 1000) + 600)
        .sign(idpPrivate);
    const later = (ms: number) => {
      now = new Date(now.getTime() + ms);
    };

    beforeEach(() => {
      accounts = build(undefined, undefined, rule);
    });

    it('when a session is checked, then it says whether its user is an operator: a local account by email, a provider user by verified email or group', async () => {
      const ops = await accounts.register('OPS@example.org', 'correct horse');
      const ada = await accounts.register('ada@example.org', 'correct horse');
      expect((await accounts.verifySession(ops.session.token)).operator).toBe(true);
      expect((await accounts.verifySession(ada.session.token)).operator).toBe(false);
      expect((await accounts.verifySession(await providerToken('p1', { email: 'ops@example.org', email_verified: true }))).operator).toBe(true);
      expect((await accounts.verifySession(await providerToken('p2', { email: 'ops@example.org' }))).operator).toBe(false);
      expect((await accounts.verifySession(await providerToken('p3', { groups: 'sandbox-operators' }))).operator).toBe(true);
      expect((await users.findById(ops.user.id))?.operator).toBe(true);
    });

    it('when an operator is seen, then the mark is written only when it changes, and lastSeenAt at most once a minute', async () => {
      const updates = jest.spyOn(users, 'update');
      const first = await accounts.verifySession(await providerToken('p4', { groups: ['sandbox-operators'] }));
      expect(updates).toHaveBeenCalledTimes(1);
      await accounts.verifySession(await providerToken('p4', { groups: ['sandbox-operators'] }));
      later(LAST_SEEN_EVERY_MS - 1);
      await accounts.verifySession(await providerToken('p4', { groups: ['sandbox-operators'] }));
      expect(updates).toHaveBeenCalledTimes(1);
      // The group was taken away at the provider: the next token says so, and so does the mark.
      await accounts.verifySession(await providerToken('p4', { groups: [] }));
      expect(updates).toHaveBeenCalledTimes(2);
      expect((await users.findById(first.user.id))?.operator).toBe(false);
      later(1);
      await accounts.verifySession(await providerToken('p4', { groups: [] }));
      expect(updates).toHaveBeenCalledTimes(3);
      expect((await users.findById(first.user.id))?.lastSeenAt).toEqual(now);
    });

    it("when a provider user signs in, then the groups of their latest token are kept on the user, bounded, for a class's SSO group", async () => {
      const long = 'g'.repeat(129);
      const many = Array.from({ length: 60 }, (_, i) => `group-${String(i).padStart(2, '0')}`);
      const first = await accounts.verifySession(await providerToken('p6', { groups: ['api-course', long, 7, 'api-course'] }));
      expect((await users.findById(first.user.id))?.groups).toEqual(['api-course']);
      await accounts.verifySession(await providerToken('p6', { groups: many }));
      expect((await users.findById(first.user.id))?.groups).toEqual(many.slice(0, 50));
      // A local account carries none.
      const ada = await accounts.register('ada@example.org', 'correct horse');
      await accounts.verifySession(ada.session.token);
      expect((await users.findById(ada.user.id))?.groups).toBeUndefined();
    });

    it("when an account is disabled, then its sessions (ours or the provider's) and its sign-in with the right password are refused, saying whom to ask", async () => {
      const ada = await accounts.register('ada@example.org', 'correct horse');
      const provider = await providerToken('p5', { email: 'ivy@campus.example' });
      const ivy = await accounts.verifySession(provider);
      for (const user of [ada.user, ivy.user]) await users.update(user.id, { disabledAt: now });
      const disabled = {
        status: 7,
        code: 'account_disabled',
        message: 'An operator has disabled this account: ask whoever runs this sandbox to enable it again.',
      };
      expect(await refusalOf(accounts.verifySession(ada.session.token))).toEqual(disabled);
      expect(await refusalOf(accounts.verifySession(provider))).toEqual(disabled);
      expect(await refusalOf(accounts.login('ada@example.org', 'correct horse', HERE))).toEqual(disabled);
      // A wrong password tells nothing about the account.
      expect((await refusalOf(accounts.login('ada@example.org', 'wrong horse', HERE))).code).toBe('invalid_credentials');
      await users.update(ada.user.id, { disabledAt: null });
      await expect(accounts.verifySession(ada.session.token)).resolves.toMatchObject({ user: { id: ada.user.id } });
    });

    it('when a provider user was deleted, then their tokens issued before are refused (account_deleted) until the record lapses, and a newer token starts a fresh account', async () => {
      const older = await providerToken('p6', { email: 'ivy@campus.example' });
      const noIat = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(ISSUER)
        .setAudience('portal')
        .setSubject('p6')
        .setExpirationTime(Math.floor(now.getTime() / 1000) + 600)
        .sign(idpPrivate);
      const first = await accounts.verifySession(older);
      later(5000);
      await sessions.put({
        id: deletedUserRecordId(`${ISSUER}#p6`),
        userId: first.user.id,
        kind: 'deleted',
        issuedBefore: now,
        expiresAt: new Date(now.getTime() + DELETED_USER_MEMORY_MS),
      });
      await users.delete(first.user.id);
      const deleted = {
        status: 16,
        code: 'account_deleted',
        message: 'An operator deleted this account; sign in through the identity provider again to start a new one.',
      };
      expect(await refusalOf(accounts.verifySession(older))).toEqual(deleted);
      expect(await refusalOf(accounts.verifySession(noIat))).toEqual(deleted);
      expect(await users.findByKey(`${ISSUER}#p6`)).toBeUndefined();
      later(1000);
      const fresh = await accounts.verifySession(await providerToken('p6', { email: 'ivy@campus.example' }));
      expect(fresh.user.id).not.toBe(first.user.id);
    });
  });
});
