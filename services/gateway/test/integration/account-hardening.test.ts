import { apiRequest, createApp, registerUser, startSystem, type CreatedApp, type RawResponse, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

const PASSWORD = 'correct horse battery';

/**
 * The rows of the hardening issue that concern accounts and apps, sent
 * through the gateway as a hostile tester sent them (the edge's rows are in
 * hostile-inputs.test.ts): each failed on the code before it.
 */
describe('accounts and apps against a hostile tester', () => {
  let system: RunningSystem;
  let session: string;
  let app: CreatedApp;
  const request = (method: string, path: string, options: Parameters<typeof apiRequest>[3] = {}) => apiRequest(system.baseUrl, method, path, options);
  const expectError = (res: RawResponse, status: number, code: string) => {
    expect({ status: res.status, code: res.json().error?.code }).toEqual({ status, code });
    expect(res.json().error.requestId).toBe(res.headers['x-request-id']);
  };
  const email = (local: string) => `${local}-${Math.random().toString(36).slice(2, 8)}@example.org`;

  beforeAll(async () => {
    system = await startSystem();
    session = await registerUser(system.baseUrl);
    app = await createApp(system.baseUrl, session);
  });
  afterAll(async () => system?.stop());

  it.each([
    ['NUL', '\u0000'],
    ['BEL', '\u0007'],
    ['ESC', '\u001b'],
    ['a right-to-left override', '\u202e'],
  ])('an email holding %s is refused with invalid_email, and no account is made', async (_what, character) => {
    const address = email(`mallory${character}x`);
    expectError(await request('POST', '/api/auth/register', { body: { email: address, password: PASSWORD } }), 400, 'invalid_email');
    expectError(await request('POST', '/api/auth/login', { body: { email: address, password: PASSWORD } }), 400, 'invalid_email');
  });

  it('a JSON body that is not UTF-8 is refused before any field is read: two byte strings never become one account', async () => {
    const local = `utf8-${Math.random().toString(36).slice(2, 8)}`;
    for (const bytes of ['\xff\xfe', '\xc0\xaf']) {
      const body = Buffer.from(`{"email":"${local}${bytes}b@example.org","password":"${PASSWORD}"}`, 'latin1');
      expectError(await request('POST', '/api/auth/register', { body, headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_utf8');
    }
    expect((await request('POST', '/api/auth/register', { body: { email: `${local}\ufffdb@example.org`, password: PASSWORD } })).status).toBe(400);
  });

  it('a form body on a JSON route is refused, naming the type expected', async () => {
    for (const path of ['/api/apps', '/api/auth/login']) {
      const res = await request('POST', path, {
        token: session,
        body: 'name=x&email=a%40b.org&password=p',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expectError(res, 400, 'invalid_body');
      expect(res.json().error.message).toContain('application/json');
    }
  });

  it('a made-up request-log page token is refused', async () => {
    const forged = Buffer.from(JSON.stringify({ t: Date.now(), i: 'ffffffffffffffffffffffff' })).toString('base64url');
    expectError(await request('GET', `/api/apps/${app.id}/logs?pageToken=${forged}`, { token: session }), 400, 'invalid_page_token');
  });

  it('a malformed app id is 404 app_not_found on every app route', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/apps/not-an-id', undefined],
      ['DELETE', '/api/apps/not-an-id', undefined],
      ['POST', '/api/apps/not-an-id/secret', undefined],
      ['POST', '/api/apps/not-an-id/rotate', {}],
      ['PUT', '/api/apps/not-an-id/redirect-uris', { redirectUris: [] }],
      ['PUT', '/api/apps/not-an-id/scopes', { scopes: ['hr:read'] }],
      ['GET', '/api/apps/not-an-id/logs', undefined],
    ] as const) {
      expectError(await request(method, path, { token: session, body }), 404, 'app_not_found');
    }
  });

  it.each([
    ['a scheme with no //', 'https:evil.com'],
    ['a backslash before userinfo', 'https://evil.com\\@good.com/'],
    ['view-source:', 'view-source:https://good.com/'],
    ['jar:', 'jar:https://good.com/a.jar!/'],
    ['userinfo', 'https://user@good.com/cb'],
    ['plain http to a public host', 'http://good.com/cb'],
    ['a fragment', 'https://good.com/cb#x'],
  ])('a redirect URI with %s is refused by the allow-list', async (_what, uri) => {
    const res = await request('PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [uri] } });
    expectError(res, 400, 'invalid_redirect_uri');
  });

  it('allowed redirect URIs are stored as given: https, loopback http (RFC 8252), a private-use scheme', async () => {
    const uris = ['https://good.example/cb?x=1', 'http://127.0.0.1:8765/cb', 'http://[::1]/cb', 'com.example.app:/oauth2redirect'];
    const res = await request('PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: uris } });
    expect(res.status).toBe(200);
    expect(res.json().redirectUris).toEqual(uris);
  });

  it('a stranger failing on the owner’s email from one address is refused there, while the owner signs in from another', async () => {
    const victim = email('victim');
    expect((await request('POST', '/api/auth/register', { body: { email: victim, password: PASSWORD }, localAddress: '127.0.0.3' })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      expectError(
        await request('POST', '/api/auth/login', { body: { email: victim, password: `guess-${i}-wrong` }, localAddress: '127.0.0.2' }),
        401,
        'invalid_credentials',
      );
    }
    const attacker = await request('POST', '/api/auth/login', { body: { email: victim, password: `guess-5-wrong` }, localAddress: '127.0.0.2' });
    expectError(attacker, 429, 'too_many_attempts');
    expect(Number(attacker.headers['retry-after'])).toBeGreaterThan(0);
    // The owner, from an address that has not been failing: slowed at most, never locked out.
    const owner = await request('POST', '/api/auth/login', { body: { email: victim, password: PASSWORD }, localAddress: '127.0.0.3' });
    expect(owner.status).toBe(200);
    expect(owner.json().token).toEqual(expect.any(String));
  });
});
