import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import {
  apiRequest,
  createApp,
  eventually,
  rawRequest,
  registerUser,
  requireStoreUrls,
  runPythonScript,
  startSystem,
  type CreatedApp,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';

jest.setTimeout(120_000);
const run = promisify(execFile);

/** The auth playground through the gateway, against the real oauth and identity services and a real Redis. */
describe('the authentication playground', () => {
  let system: RunningSystem;
  let session: string;
  let app: CreatedApp;
  const get = (path: string, headers: Record<string, string> = {}) => rawRequest(`${system.baseUrl}${path}`, { headers });
  const expectRefused = (res: RawResponse, challenge: RegExp, reason?: RegExp) => {
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(challenge);
    if (reason) expect(res.json().error.message).toMatch(reason);
    return res;
  };
  const basicOf = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const hmacHeaders = (method: string, path: string, options: { timestamp?: number; key?: string } = {}) => {
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    const signature = createHmac('sha256', options.key ?? app.apiKey)
      .update(`${timestamp}.${method}.${path}`)
      .digest('hex');
    return { 'x-app-id': app.appId, 'x-timestamp': timestamp, 'x-signature': signature };
  };

  beforeAll(async () => {
    system = await startSystem({ REDIS_URL: requireStoreUrls().redisUrl });
    session = await registerUser(system.baseUrl);
    app = await createApp(system.baseUrl, session, { scopes: ['hr:read'] });
  });
  afterAll(async () => system?.stop());

  describe('static credentials', () => {
    it('basic, bearer, api-key and api-key-query each answer the app, the style and the scopes', async () => {
      const expected = (style: string) => ({ authenticated: true, style, app: { id: app.id, appId: app.appId }, scopes: ['hr:read'] });
      expect((await get('/playground/auth/basic', { Authorization: basicOf(app.appId, app.appSecret) })).json()).toEqual(expected('basic'));
      expect((await get('/playground/auth/bearer', { Authorization: `Bearer ${app.bearerToken}` })).json()).toEqual(expected('bearer'));
      expect((await get('/playground/auth/api-key', { 'x-api-key': app.apiKey })).json()).toEqual(expected('api_key_header'));
      const query = (await get(`/playground/auth/api-key-query?api_key=${app.apiKey}`)).json();
      expect(query).toMatchObject(expected('api_key_query'));
      expect(query.note).toMatch(/weaker/);
    });

    it('each refuses with the challenge of its own style', async () => {
      expectRefused(await get('/playground/auth/basic'), /^Basic realm="training-sandbox", charset="UTF-8"$/);
      expectRefused(await get('/playground/auth/basic', { Authorization: basicOf(app.appId, 'as_wrong') }), /^Basic /);
      expectRefused(await get('/playground/auth/bearer', { Authorization: 'Bearer bt_wrong' }), /^Bearer realm="training-sandbox", error="invalid_token"$/);
      expectRefused(await get('/playground/auth/api-key'), /^ApiKey realm="training-sandbox", in="header", name="x-api-key"$/);
      expectRefused(await get('/playground/auth/api-key-query?api_key=ak_wrong'), /in="query", name="api_key", error="invalid_key"/);
    });

    it('curl -u authenticates with Basic', async () => {
      const { stdout } = await run('curl', ['-s', '-u', `${app.appId}:${app.appSecret}`, `${system.baseUrl}/playground/auth/basic`]);
      expect(JSON.parse(stdout)).toMatchObject({ authenticated: true, style: 'basic' });
    });
  });

  describe('hmac', () => {
    it('a signature over "timestamp.METHOD.path" with the API key is accepted, by POST and by GET', async () => {
      const post = await rawRequest(`${system.baseUrl}/playground/auth/hmac`, { method: 'POST', headers: hmacHeaders('POST', '/playground/auth/hmac') });
      expect(post.json()).toMatchObject({ authenticated: true, style: 'hmac' });
      expect((await get('/playground/auth/hmac', hmacHeaders('GET', '/playground/auth/hmac'))).status).toBe(200);
    });

    it('when the same signed request is sent twice, then the second is refused (invalid_credentials), saying this exact signature was used and a new timestamp makes a new one', async () => {
      // A timestamp no other test signs with this method and path: the signature is new until it is sent.
      const headers = hmacHeaders('GET', '/playground/auth/hmac', { timestamp: Math.floor(Date.now() / 1000) - 7 });
      expect((await get('/playground/auth/hmac', headers)).status).toBe(200);
      const again = expectRefused(
        await get('/playground/auth/hmac', headers),
        /^HMAC /,
        /^Replayed: this exact signature \(of "\d+\.GET\.\/playground\/auth\/hmac"\) was already used/,
      );
      expect(again.json().error.code).toBe('invalid_credentials');
      expect(again.json().error.message).toMatch(/A new x-timestamp makes a new signature/);
    });

    it('a clock 10 minutes off, a millisecond timestamp, a signed query string and a missing header are each explained', async () => {
      const now = Math.floor(Date.now() / 1000);
      expectRefused(
        await get('/playground/auth/hmac', hmacHeaders('GET', '/playground/auth/hmac', { timestamp: now - 600 })),
        /^HMAC /,
        /300|5 minutes|window/i,
      );
      expectRefused(await get('/playground/auth/hmac', hmacHeaders('GET', '/playground/auth/hmac', { timestamp: now * 1000 })), /^HMAC /, /millisecond/i);
      const withQuery = hmacHeaders('GET', '/playground/auth/hmac?x=1');
      expectRefused(await get('/playground/auth/hmac?x=1', withQuery), /^HMAC /, /query/i);
      const { 'x-signature': _missing, ...partial } = hmacHeaders('GET', '/playground/auth/hmac');
      expectRefused(await get('/playground/auth/hmac', partial), /^HMAC /, /x-signature/);
    });

    it('a refused attempt lands in the app’s request log with the rule that failed', async () => {
      await get('/playground/auth/hmac', hmacHeaders('GET', '/playground/auth/hmac', { key: 'ak_not_the_key' }));
      const logged = await eventually(
        async () =>
          (await apiRequest(system.baseUrl, 'GET', `/api/apps/${app.id}/logs`, { token: session })).json().entries as {
            authStyle: string;
            status: number;
            failure?: string;
          }[],
        (entries) => entries.some((e) => e.authStyle === 'hmac' && e.status === 401),
        10_000,
      );
      expect(logged.value.find((e) => e.authStyle === 'hmac' && e.status === 401)?.failure).toMatch(/^invalid_credentials: /);
    });
  });

  describe('digest', () => {
    it('a first request gets SHA-256 and MD5 challenges with one realm; curl --digest then gets in', async () => {
      const first = await get('/playground/auth/digest');
      expect(first.status).toBe(401);
      const challenges = first.headers['www-authenticate'] as string;
      expect(challenges).toMatch(/^Digest realm="training-sandbox".*algorithm=SHA-256/);
      expect(challenges).toMatch(/algorithm=MD5/);
      expect(challenges).toMatch(/qop="auth"/);
      const { stdout } = await run('curl', ['-s', '--digest', '-u', `${app.appId}:${app.apiKey}`, `${system.baseUrl}/playground/auth/digest`]);
      expect(JSON.parse(stdout)).toMatchObject({ authenticated: true, style: 'digest' });
    });

    it('a wrong password is refused with a fresh challenge, and the message never holds the expected response', async () => {
      const { stdout } = await run('curl', ['-s', '--digest', '-u', `${app.appId}:ak_wrong`, '-D', '-', `${system.baseUrl}/playground/auth/digest`]);
      expect(stdout).toMatch(/HTTP\/1\.1 401/);
      expect(stdout).toMatch(/www-authenticate: Digest /i);
    });
  });

  describe('jwt', () => {
    let issued: { hs256: string; rs256: string; audience: string; issuer: string };
    beforeAll(async () => {
      const res = await rawRequest(`${system.baseUrl}/playground/auth/jwt/issue`, {
        method: 'POST',
        headers: { Authorization: basicOf(app.appId, app.appSecret) },
      });
      expect(res.status).toBe(200);
      issued = res.json();
    });

    it('issue needs Basic; both tokens are accepted at /playground/auth/jwt and on the data endpoint, whose scope decides 403', async () => {
      expect((await rawRequest(`${system.baseUrl}/playground/auth/jwt/issue`, { method: 'POST' })).status).toBe(401);
      for (const token of [issued.hs256, issued.rs256]) {
        expect((await get('/playground/auth/jwt', { Authorization: `Bearer ${token}` })).json()).toMatchObject({ authenticated: true, style: 'jwt' });
        expect((await get('/playground/data/hr/employees?page_size=1', { Authorization: `Bearer ${token}` })).status).toBe(200);
        expect((await get('/playground/data/stocks/tickers', { Authorization: `Bearer ${token}` })).status).toBe(403);
      }
    });

    it('a wrong aud, an expired token, alg none and an RS256 token re-signed as HS256 with the public key are refused', async () => {
      const key = new TextEncoder().encode(app.apiKey);
      const claims = { sub: app.appId, scope: 'hr:read' };
      const wrongAud = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .setAudience('someone-else')
        .sign(key);
      expectRefused(await get('/playground/auth/jwt', { Authorization: `Bearer ${wrongAud}` }), /^Bearer /, /aud/);
      const past = Math.floor(Date.now() / 1000) - 3600;
      const expired = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(past - 60)
        .setExpirationTime(past)
        .setAudience(issued.audience)
        .sign(key);
      expectRefused(await get('/playground/auth/jwt', { Authorization: `Bearer ${expired}` }), /^Bearer /, /expir/i);
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, aud: issued.audience, exp: past + 7200 })}.`;
      expectRefused(await get('/playground/auth/jwt', { Authorization: `Bearer ${none}` }), /^Bearer /, /alg/i);
      const { pem } = (await get('/playground/auth/jwt/public-key')).json();
      const confused = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .setAudience(issued.audience)
        .sign(new TextEncoder().encode(pem));
      expectRefused(await get('/playground/auth/jwt', { Authorization: `Bearer ${confused}` }), /^Bearer /);
    });

    it('decode shows header and payload unverified; what is not a JWT is a 400', async () => {
      const decoded = await apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body: { token: issued.rs256 } });
      expect(decoded.json()).toMatchObject({ header: { alg: 'RS256' }, payload: { sub: app.appId }, verified: false });
      const bad = await apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body: { token: 'not.a.jwt' } });
      expect(bad.status).toBe(400);
      expect(bad.json().error.code).toBe('not_a_jwt');
      expect((await apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body: {} })).status).toBe(400);
    });

    it('when decode is sent a field it does not read, then 400 names it, as every JSON body does', async () => {
      const res = await apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body: { token: issued.rs256, verify: true } });
      expect({ status: res.status, code: res.json().error.code }).toEqual({ status: 400, code: 'invalid_body' });
      expect(res.json().error.message).toBe('Unknown field "verify"; this endpoint accepts token.');
    });
  });

  it('Python requests (HTTPBasicAuth, HTTPDigestAuth with SHA-256 and MD5) and PyJWT (the PEM and the JWKS) work as a learner would use them', async () => {
    const result = await runPythonScript<Record<string, Record<string, unknown>>>('auth_styles.py', [system.baseUrl, app.appId, app.appSecret, app.apiKey]);
    expect(result.basic).toMatchObject({ status: 200, style: 'basic', wrong_status: 401, wrong_challenge: expect.stringMatching(/^Basic /) });
    for (const variant of ['digest_default', 'digest_sha256', 'digest_md5']) expect(result[variant]).toMatchObject({ status: [200, 200], style: 'digest' });
    expect(result.digest_sha256.sent).toMatch(/algorithm="?SHA-256/);
    expect(result.digest_md5.sent).toMatch(/algorithm="?MD5/);
    expect(result.jwt).toMatchObject({ sub_from_pem: app.appId, sub_from_jwks: app.appId, sub_from_api_key: app.appId });
  });
});
