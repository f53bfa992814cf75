import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import mongoose from 'mongoose';
import { apiRequest, eventually, isolatedMongoUrl, requireStoreUrls, startSystem, type RawResponse, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(60_000);

/*
 * Portal accounts and sessions through the real gateway, with identity on a
 * real MongoDB-wire server and a stand-in for a platform team's identity
 * provider (a JWKS endpoint served by this test).
 */
const SESSION_KEY = randomBytes(32);
const IDP_ISSUER = 'https://idp.training.example';
const IDP_AUDIENCE = 'training-sandbox-portal';
const PASSWORD = 'correct horse battery';

describe('portal accounts and sessions (through the gateway)', () => {
  let system: RunningSystem;
  let mongoUrl: string;
  let idp: http.Server;
  let idpKey: CryptoKey;

  const request = (method: string, path: string, options: Parameters<typeof apiRequest>[3] = {}) => apiRequest(system.baseUrl, method, path, options);
  const email = () => `user-${randomBytes(4).toString('hex')}@example.com`;
  const register = async (address = email()) => {
    const res = await request('POST', '/api/auth/register', { body: { email: address, password: PASSWORD } });
    expect(res.status).toBe(201);
    return { email: address, token: res.json().token as string };
  };
  const expectError = (res: RawResponse, status: number, code: string) => {
    expect({ status: res.status, code: res.json().error?.code }).toEqual({ status, code });
    expect(res.json()).toEqual({ error: { code, message: expect.any(String), requestId: res.headers['x-request-id'] } });
  };
  const idpToken = (subject: string, claims: Record<string, unknown> = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(IDP_ISSUER)
      .setAudience(IDP_AUDIENCE)
      .setSubject(subject)
      .setExpirationTime('10m')
      .sign(idpKey);

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    idpKey = pair.privateKey;
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
    idp = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(jwks));
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    mongoUrl = isolatedMongoUrl('portal_auth');
    system = await startSystem({
      MONGO_URL: mongoUrl,
      REDIS_URL: requireStoreUrls().redisUrl,
      CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      SESSION_SIGNING_KEY: SESSION_KEY.toString('hex'),
      EXTERNAL_IDP_ISSUER: IDP_ISSUER,
      EXTERNAL_IDP_JWKS_URL: `http://127.0.0.1:${(idp.address() as AddressInfo).port}/jwks`,
      EXTERNAL_IDP_AUDIENCE: IDP_AUDIENCE,
      LOG_LEVEL: 'debug',
    });
  });

  afterAll(async () => {
    await system?.stop();
    idp?.close();
    const connection = await mongoose.createConnection(mongoUrl).asPromise();
    await connection.db?.dropDatabase();
    await connection.close();
  });

  describe('POST /api/auth/register', () => {
    it('when the email is new, then 201 with a session token and its expiry, never cached', async () => {
      const address = email();
      const res = await request('POST', '/api/auth/register', { body: { email: address, password: PASSWORD } });
      expect(res.status).toBe(201);
      expect(res.json()).toEqual({ token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), expiresAt: expect.any(String) });
      expect(Date.parse(res.json().expiresAt) - Date.now()).toBeGreaterThan(3500_000);
      expect(res.headers['cache-control']).toBe('no-store');
      const me = await request('GET', '/api/me', { token: res.json().token });
      expect(me.status).toBe(200);
      expect(me.json()).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        email: address,
        provider: 'password',
        createdAt: expect.any(String),
        operator: false,
      });
    });

    it('when the email is taken (in any letter case), then 409 email_taken', async () => {
      const { email: address } = await register();
      expectError(await request('POST', '/api/auth/register', { body: { email: address.toUpperCase(), password: PASSWORD } }), 409, 'email_taken');
    });

    it.each([
      ['a missing email', { password: PASSWORD }, 'invalid_body', /email is required/],
      ['a non-string email', { email: 42, password: PASSWORD }, 'invalid_body', /email must be a string/],
      ['a non-string password', { email: 'a@example.com', password: ['x'] }, 'invalid_body', /password must be a string/],
      ['an unknown field', { email: 'a@example.com', password: PASSWORD, admin: true }, 'invalid_body', /"admin"/],
      ['a malformed email', { email: 'not-an-email', password: PASSWORD }, 'invalid_email', /email/],
      ['an email over 254 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(190)}.com`, password: PASSWORD }, 'invalid_email', /254/],
      ['a password under 8 characters', { email: 'a@example.com', password: 'short' }, 'password_too_short', /at least 8/],
      ['a password over 200 characters', { email: 'a@example.com', password: 'p'.repeat(201) }, 'password_too_long', /at most 200/],
    ])('when the body has %s, then 400 naming the problem', async (_label, body, code, message) => {
      const res = await request('POST', '/api/auth/register', { body });
      expectError(res, 400, code);
      expect(res.json().error.message).toMatch(message);
    });

    it('when the body is not a JSON object, then 400', async () => {
      expectError(await request('POST', '/api/auth/register', { body: '[1,2]' }), 400, 'invalid_body');
      expectError(await request('POST', '/api/auth/register', { body: '{"email":' }), 400, 'malformed_body');
      expectError(await request('POST', '/api/auth/register', { body: 'email=a', headers: { 'Content-Type': 'text/plain' } }), 400, 'invalid_body');
    });
  });

  describe('POST /api/auth/login', () => {
    it('when the password is right, then 200 with a new working token', async () => {
      const { email: address } = await register();
      const res = await request('POST', '/api/auth/login', { body: { email: address, password: PASSWORD } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ token: expect.any(String), expiresAt: expect.any(String) });
      expect((await request('GET', '/api/me', { token: res.json().token })).json().email).toBe(address);
    });

    it('when the password is wrong or the email unknown, then the same 401', async () => {
      const { email: address } = await register();
      const wrong = await request('POST', '/api/auth/login', { body: { email: address, password: 'wrong password' } });
      const unknown = await request('POST', '/api/auth/login', { body: { email: email(), password: 'wrong password' } });
      expectError(wrong, 401, 'invalid_credentials');
      expect({ ...unknown.json().error, requestId: '' }).toEqual({ ...wrong.json().error, requestId: '' });
      expect(unknown.headers['www-authenticate']).toBe(wrong.headers['www-authenticate']);
    });

    it('when one address fails five times on one account, then that address gets 429, even with the right password', async () => {
      const { email: address } = await register();
      for (let i = 0; i < 5; i++)
        expectError(await request('POST', '/api/auth/login', { body: { email: address, password: `wrong-${i}-password` } }), 401, 'invalid_credentials');
      const locked = await request('POST', '/api/auth/login', { body: { email: address, password: PASSWORD } });
      expectError(locked, 429, 'too_many_attempts');
      expect(locked.json().error.message).toMatch(/try again in \d+ s/);
      // RFC 9110 §10.2.3: the same wait, in seconds, for clients that honour Retry-After.
      expect(locked.headers['retry-after']).toBe(locked.json().error.message.match(/try again in (\d+) s/)[1]);
      // Other accounts are not affected.
      const { email: other } = await register();
      expect((await request('POST', '/api/auth/login', { body: { email: other, password: PASSWORD } })).status).toBe(200);
    });
  });

  describe('sessions', () => {
    it('when signed out, then that token answers 401 session_ended everywhere, and another session of the same user still works', async () => {
      const { email: address, token } = await register();
      const second = (await request('POST', '/api/auth/login', { body: { email: address, password: PASSWORD } })).json().token;
      const out = await request('POST', '/api/auth/logout', { token });
      expect(out.status).toBe(200);
      expect(out.json()).toEqual({ status: 'signed_out' });
      expectError(await request('GET', '/api/me', { token }), 401, 'session_ended');
      expectError(await request('GET', '/api/apps', { token }), 401, 'session_ended');
      expectError(await request('POST', '/api/auth/logout', { token }), 401, 'session_ended');
      expect((await request('GET', '/api/me', { token: second })).status).toBe(200);
    });

    it('when no session is sent, then 401 with a Bearer challenge', async () => {
      for (const [method, path] of [
        ['GET', '/api/me'],
        ['POST', '/api/me/reset'],
        ['GET', '/api/apps'],
        ['POST', '/api/apps'],
        ['GET', '/api/apps/0123456789abcdef01234567'],
        ['DELETE', '/api/apps/0123456789abcdef01234567'],
        ['POST', '/api/apps/0123456789abcdef01234567/secret'],
        ['POST', '/api/apps/0123456789abcdef01234567/rotate'],
        ['PUT', '/api/apps/0123456789abcdef01234567/redirect-uris'],
        ['PUT', '/api/apps/0123456789abcdef01234567/scopes'],
        ['GET', '/api/apps/0123456789abcdef01234567/logs'],
        ['POST', '/api/auth/logout'],
      ]) {
        const res = await request(method, path);
        expectError(res, 401, 'session_required');
        expect(res.headers['www-authenticate']).toBe('Bearer realm="training-sandbox-portal"');
      }
    });

    it('when the session token is forged, expired, garbage or of another kind, then 401 with error="invalid_token"', async () => {
      const { token } = await register();
      const me = (await request('GET', '/api/me', { token })).json();
      const claims = { iss: 'urn:training-sandbox:identity', aud: 'urn:training-sandbox:portal', sub: me.id, jti: 'x' };
      const expired = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
        .sign(SESSION_KEY);
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(randomBytes(32));
      const [header, payload] = token.split('.');
      const cases: [string, string][] = [
        [expired, 'session_expired'],
        [forged, 'invalid_session'],
        [`${header}.${payload}.${randomBytes(32).toString('base64url')}`, 'invalid_session'],
        ['not-a-token', 'invalid_session'],
        [`bt_${randomBytes(32).toString('base64url')}`, 'invalid_session'],
      ];
      for (const [bad, code] of cases) {
        const res = await request('GET', '/api/me', { token: bad });
        expectError(res, 401, code);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="training-sandbox-portal", error="invalid_token"');
      }
    });
  });

  describe('a trusted identity provider', () => {
    it('when its user is first seen, then an account is created, and the same account is used afterwards', async () => {
      const first = await request('GET', '/api/me', { token: await idpToken('emp-1001', { email: 'Grace@Corp.Example' }) });
      expect(first.status).toBe(200);
      expect(first.json()).toMatchObject({ email: 'grace@corp.example', provider: IDP_ISSUER });
      const again = await request('GET', '/api/me', { token: await idpToken('emp-1001') });
      expect(again.json().id).toBe(first.json().id);
      const created = await request('POST', '/api/apps', { token: await idpToken('emp-1001'), body: { name: 'From the IdP' } });
      expect(created.status).toBe(201);
      const listed = await request('GET', '/api/apps', { token: await idpToken('emp-1001') });
      expect(listed.json().apps.map((a: { id: string }) => a.id)).toEqual([created.json().id]);
    });

    it('when its token is for another audience or signed out, then 401', async () => {
      const otherAudience = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(IDP_ISSUER)
        .setAudience('someone-else')
        .setSubject('emp-1')
        .setExpirationTime('10m')
        .sign(idpKey);
      expectError(await request('GET', '/api/me', { token: otherAudience }), 401, 'invalid_session');
      const token = await idpToken('emp-2002');
      expect((await request('POST', '/api/auth/logout', { token })).status).toBe(200);
      expectError(await request('GET', '/api/me', { token }), 401, 'session_ended');
    });
  });

  it('no password or session token ever appears in any process output', async () => {
    const { email: address, token } = await register();
    await request('POST', '/api/auth/login', { body: { email: address, password: 'a wrong password' } });
    // Log lines are written in chunks, at most 250 ms after they were logged.
    await eventually(
      async () => system.output(),
      (out) => out.includes('"path":"/api/auth/login"'),
      10_000,
    );
    const output = system.output();
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain('a wrong password');
    expect(output).not.toContain(token.split('.')[2]);
  });

  it('the database holds passwords only as scrypt hashes', async () => {
    const { email: address } = await register();
    const connection = await mongoose.createConnection(mongoUrl).asPromise();
    try {
      const user = await connection.collection('users').findOne({ email: address });
      expect(user?.passwordHash).toMatch(/^scrypt\$15\$8\$1\$/);
      expect(JSON.stringify(await connection.collection('users').find({}).toArray())).not.toContain(PASSWORD);
    } finally {
      await connection.close();
    }
  });
});
