import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  apiRequest,
  createApp,
  eventually,
  rawRequest,
  registerUser,
  requireStoreUrls,
  startSystem,
  type CreatedApp,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';

jest.setTimeout(120_000);

const REDIRECT = 'http://127.0.0.1:9/callback';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** OAuth 2.0 through the gateway, against the real oauth service and a real Redis. */
describe('OAuth 2.0 through the gateway', () => {
  let system: RunningSystem;
  let session: string;
  let app: CreatedApp;

  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    rawRequest(`${system.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: form(fields),
    });
  const token = (fields: Record<string, string>, headers: Record<string, string> = {}) => post('/oauth/token', fields, headers);
  const clientCredentials = async (scope?: string) => {
    const res = await token({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }, { Authorization: basic(app.appId, app.appSecret) });
    expect(res.status).toBe(200);
    return res.json().access_token as string;
  };
  const expectOAuthError = (res: RawResponse, status: number, error: string) => {
    expect({ status: res.status, error: res.json().error }).toEqual({ status, error });
    expect(typeof res.json().error_description).toBe('string');
  };
  /** The authorize step of the code flow, with the 302 read by hand; resolves to the redirect's parameters. */
  const authorize = async (params: Record<string, string>) => {
    const res = await rawRequest(
      `${system.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.appId, redirect_uri: REDIRECT, ...params })}`,
    );
    expect(res.status).toBe(302);
    return new URL(res.headers.location as string).searchParams;
  };
  const codeFlow = async (scope = 'hr:read') => {
    const verifier = randomBytes(32).toString('base64url');
    const code = (await authorize({ scope, state: 'st-1', code_challenge: s256(verifier), code_challenge_method: 'S256' })).get('code')!;
    const res = await token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { Authorization: basic(app.appId, app.appSecret) },
    );
    expect(res.status).toBe(200);
    return { code, verifier, tokens: res.json() };
  };

  beforeAll(async () => {
    system = await startSystem({ REDIS_URL: requireStoreUrls().redisUrl });
    session = await registerUser(system.baseUrl);
    app = await createApp(system.baseUrl, session, { scopes: ['hr:read', 'stocks:read'] });
    const set = await apiRequest(system.baseUrl, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [REDIRECT] } });
    expect(set.status).toBe(200);
  });
  afterAll(async () => system?.stop());

  describe('client credentials', () => {
    it('with Basic: an RFC 6749 5.1 answer, never cached, and no refresh token (RFC 6749 4.4.3)', async () => {
      const res = await token({ grant_type: 'client_credentials' }, { Authorization: basic(app.appId, app.appSecret) });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number), scope: expect.any(String) });
      // No scope asked for: every scope the app holds (RFC 6749 3.3 allows the server's default).
      expect(res.json().scope.split(' ').sort()).toEqual(['hr:read', 'stocks:read']);
    });

    it('with the body fields, and with a form-urlencoded Basic id (RFC 6749 2.3.1), and with no grant_type (the default)', async () => {
      expect((await token({ grant_type: 'client_credentials', client_id: app.appId, client_secret: app.appSecret })).status).toBe(200);
      const encoded = `Basic ${Buffer.from(`${encodeURIComponent(app.appId).replace(/_/g, '%5F')}:${encodeURIComponent(app.appSecret)}`).toString('base64')}`;
      expect((await token({ grant_type: 'client_credentials' }, { Authorization: encoded })).status).toBe(200);
      expect((await token({ client_id: app.appId, client_secret: app.appSecret })).status).toBe(200);
    });

    it('the access token is an RFC 9068 JWT, verifiable with the published JWKS named in the metadata', async () => {
      const access = await clientCredentials('hr:read');
      const metadata = (await rawRequest(`${system.baseUrl}/.well-known/oauth-authorization-server`)).json();
      expect(metadata).toMatchObject({
        issuer: system.baseUrl,
        token_endpoint: `${system.baseUrl}/oauth/token`,
        jwks_uri: `${system.baseUrl}/.well-known/jwks.json`,
      });
      const jwks = (await rawRequest(metadata.jwks_uri)).json();
      const { payload, protectedHeader } = await jwtVerify(access, createLocalJWKSet(jwks), { issuer: system.baseUrl, typ: 'at+jwt' });
      // ES256 by default (OAUTH_ACCESS_TOKEN_ALG), with the first key of the set: the one that signs.
      expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: jwks.keys[0].kid });
      expect(jwks.keys.map((key: { alg: string }) => key.alg)).toEqual(['ES256', 'RS256']);
      expect(payload).toMatchObject({ client_id: app.appId, scope: 'hr:read', sub: app.appId });
      expect(decodeProtectedHeader(access).typ).toBe('at+jwt');
    });

    it('a wrong secret is 401 invalid_client; with Basic the answer challenges Basic', async () => {
      const viaBasic = await token({ grant_type: 'client_credentials' }, { Authorization: basic(app.appId, 'as_wrong') });
      expectOAuthError(viaBasic, 401, 'invalid_client');
      expect(viaBasic.headers['www-authenticate']).toMatch(/^Basic /);
      expectOAuthError(await token({ grant_type: 'client_credentials', client_id: app.appId, client_secret: 'as_wrong' }), 401, 'invalid_client');
    });

    it('refuses what RFC 6749 refuses, in its error shape', async () => {
      const auth = { Authorization: basic(app.appId, app.appSecret) };
      expectOAuthError(await token({ grant_type: 'client_credentials', client_id: app.appId, client_secret: app.appSecret }, auth), 400, 'invalid_request');
      expectOAuthError(await token({ grant_type: 'password' }, auth), 400, 'unsupported_grant_type');
      expectOAuthError(await token({ grant_type: 'client_credentials', scope: 'cricket:read' }, auth), 400, 'invalid_scope');
      expectOAuthError(
        await token({ grant_type: 'client_credentials', scope: 'hr:read' }, { ...auth, 'Content-Type': 'application/json' }),
        400,
        'invalid_request',
      );
      const twice = await rawRequest(`${system.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&scope=hr:read&scope=stocks:read',
      });
      expectOAuthError(twice, 400, 'invalid_request');
    });
  });

  describe('the access token at the resource', () => {
    it('is accepted by /playground/auth/oauth2 and by the data endpoint within its scope', async () => {
      const access = await clientCredentials('hr:read');
      const me = await rawRequest(`${system.baseUrl}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${access}` } });
      expect(me.status).toBe(200);
      expect(me.json()).toMatchObject({ authenticated: true, style: 'oauth2', app: { appId: app.appId }, scopes: ['hr:read'] });
      expect((await rawRequest(`${system.baseUrl}/playground/data/hr/employees?page_size=2`, { headers: { Authorization: `Bearer ${access}` } })).status).toBe(
        200,
      );
    });

    it('outside its scope: 403 with the RFC 6750 insufficient_scope challenge naming the scope', async () => {
      const access = await clientCredentials('hr:read');
      const res = await rawRequest(`${system.baseUrl}/playground/data/stocks/tickers`, { headers: { Authorization: `Bearer ${access}` } });
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="training-sandbox", error="insufficient_scope", scope="stocks:read"');
    });

    it('a token that is not ours is 401 with error="invalid_token"', async () => {
      const res = await rawRequest(`${system.baseUrl}/playground/auth/oauth2`, { headers: { Authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' } });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    });
  });

  describe('authorization code with PKCE', () => {
    it('an unknown client or an unregistered redirect URI is a 400 that never redirects', async () => {
      const unknown = await rawRequest(
        `${system.baseUrl}/oauth/authorize?response_type=code&client_id=app_nobody&redirect_uri=${encodeURIComponent(REDIRECT)}`,
      );
      expect(unknown.status).toBe(400);
      expect(unknown.headers.location).toBeUndefined();
      const elsewhere = await rawRequest(
        `${system.baseUrl}/oauth/authorize?response_type=code&client_id=${app.appId}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
      );
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.headers.location).toBeUndefined();
      expect(elsewhere.json().error_description).toMatch(/1 registered/);
    });

    it('other errors redirect with error, error_description, state and iss', async () => {
      const params = await authorize({ state: 'keep-me', code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' });
      expect(params.get('error')).toBe('invalid_request');
      expect(params.get('error_description')).toBeTruthy();
      expect(params.get('state')).toBe('keep-me');
      expect(params.get('iss')).toBe(system.baseUrl);
    });

    it('a code is redeemed once with its verifier; the tokens include a refresh token', async () => {
      const { tokens } = await codeFlow();
      expect(tokens).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: expect.any(Number),
        scope: 'hr:read',
        refresh_token: expect.any(String),
      });
    });

    it('a wrong verifier is invalid_grant and says what S256 of it gave', async () => {
      const verifier = randomBytes(32).toString('base64url');
      const code = (await authorize({ code_challenge: s256(verifier), code_challenge_method: 'S256' })).get('code')!;
      const wrong = randomBytes(32).toString('base64url');
      const res = await token(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: wrong },
        { Authorization: basic(app.appId, app.appSecret) },
      );
      expectOAuthError(res, 400, 'invalid_grant');
      expect(res.json().error_description).toContain(s256(wrong));
    });

    it('a second redemption of a code is invalid_grant and revokes the tokens of the first', async () => {
      const { code, verifier, tokens } = await codeFlow();
      const again = await token(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
        { Authorization: basic(app.appId, app.appSecret) },
      );
      expectOAuthError(again, 400, 'invalid_grant');
      const introspected = await post('/oauth/introspect', { token: tokens.access_token });
      expect(introspected.json()).toEqual({ active: false });
      expectOAuthError(
        await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { Authorization: basic(app.appId, app.appSecret) }),
        400,
        'invalid_grant',
      );
    });

    it('refresh tokens rotate; presenting a used one is invalid_grant and revokes the whole family', async () => {
      const { tokens } = await codeFlow();
      const auth = { Authorization: basic(app.appId, app.appSecret) };
      const first = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, auth);
      expect(first.status).toBe(200);
      expect(first.json().refresh_token).not.toBe(tokens.refresh_token);
      expectOAuthError(await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, auth), 400, 'invalid_grant');
      expectOAuthError(await token({ grant_type: 'refresh_token', refresh_token: first.json().refresh_token }, auth), 400, 'invalid_grant');
    });
  });

  describe('introspection and revocation', () => {
    it('introspection answers RFC 7662 fields for a live token and only active:false for anything else', async () => {
      const access = await clientCredentials('hr:read');
      const live = await post('/oauth/introspect', { token: access });
      expect(live.status).toBe(200);
      expect(live.json()).toMatchObject({
        active: true,
        client_id: app.appId,
        scope: 'hr:read',
        token_type: 'Bearer',
        exp: expect.any(Number),
        iat: expect.any(Number),
      });
      expect((await post('/oauth/introspect', { token: 'not-a-token' })).json()).toEqual({ active: false });
      expectOAuthError(await post('/oauth/introspect', {}), 400, 'invalid_request');
    });

    it('when the app holds no scope, then a live token introspects with scope "" rather than without the member', async () => {
      const bare = await createApp(system.baseUrl, session, { scopes: [] });
      const issued = await token({ grant_type: 'client_credentials' }, { Authorization: basic(bare.appId, bare.appSecret) });
      expect(issued.status).toBe(200);
      const live = await post('/oauth/introspect', { token: issued.json().access_token });
      expect(live.status).toBe(200);
      expect(live.json()).toMatchObject({ active: true, client_id: bare.appId, scope: '' });
    });

    it('a revoked access token is inactive and refused at the resource', async () => {
      const access = await clientCredentials('hr:read');
      const revoked = await post('/oauth/revoke', { token: access }, { Authorization: basic(app.appId, app.appSecret) });
      expect(revoked.status).toBe(200);
      expect((await post('/oauth/introspect', { token: access })).json()).toEqual({ active: false });
      await eventually(
        async () => (await rawRequest(`${system.baseUrl}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${access}` } })).status,
        (status) => status === 401,
        10_000,
      );
    });

    it('revoking the app ends its tokens (within a second: the caches, pinned in unit tests)', async () => {
      const other = await createApp(system.baseUrl, session, { scopes: ['hr:read'] });
      const res = await token({ grant_type: 'client_credentials' }, { Authorization: basic(other.appId, other.appSecret) });
      const access = res.json().access_token;
      expect((await rawRequest(`${system.baseUrl}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${access}` } })).status).toBe(200);
      expect((await apiRequest(system.baseUrl, 'DELETE', `/api/apps/${other.id}?mode=revoke`, { token: session })).status).toBe(200);
      await eventually(
        async () => (await rawRequest(`${system.baseUrl}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${access}` } })).status,
        (status) => status === 401,
        10_000,
      );
      expect((await post('/oauth/introspect', { token: access })).json()).toEqual({ active: false });
    });
  });

  it("token calls land in the app's request log, a refused one with the rule that failed", async () => {
    const logged = await createApp(system.baseUrl, session, { scopes: ['hr:read'] });
    expect((await token({ grant_type: 'client_credentials' }, { Authorization: basic(logged.appId, logged.appSecret) })).status).toBe(200);
    expect((await token({ grant_type: 'client_credentials' }, { Authorization: basic(logged.appId, 'as_wrong') })).status).toBe(401);
    const entries = await eventually(
      async () =>
        (await apiRequest(system.baseUrl, 'GET', `/api/apps/${logged.id}/logs`, { token: session })).json().entries as {
          path: string;
          status: number;
          authStyle: string;
          failure?: string;
        }[],
      (list) => list.filter((e) => e.path === '/oauth/token').length >= 2,
      10_000,
    );
    const calls = entries.value.filter((e) => e.path === '/oauth/token');
    expect(calls.map((e) => [e.status, e.authStyle])).toEqual(
      expect.arrayContaining([
        [200, 'oauth2'],
        [401, 'oauth2'],
      ]),
    );
    expect(calls.find((e) => e.status === 401)?.failure).toMatch(/^invalid_client: /);
  });

  it('behind a TLS-terminating proxy, the issuer and every metadata URL are https', async () => {
    const proxied = await startSystem({ REDIS_URL: requireStoreUrls().redisUrl, TRUST_PROXY: 'true' });
    try {
      const res = await rawRequest(`${proxied.baseUrl}/.well-known/oauth-authorization-server`, {
        headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'class.example.org', 'X-Forwarded-Prefix': '/sandbox' },
      });
      const metadata = res.json();
      expect(metadata.issuer).toBe('https://class.example.org/sandbox');
      for (const [name, value] of Object.entries(metadata))
        if (name.endsWith('_endpoint') || name === 'jwks_uri') expect(value).toMatch(/^https:\/\/class\.example\.org\/sandbox\//);
    } finally {
      await proxied.stop();
    }
  });
});
