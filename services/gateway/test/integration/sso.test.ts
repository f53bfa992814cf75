import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import mongoose from 'mongoose';
import {
  apiRequest,
  eventually,
  freePort,
  isolatedMongoUrl,
  rawRequest,
  requireStoreUrls,
  startSystem,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';
import { HandBrowser, pkcePair, signInAtProvider, startOidcProvider, type OidcProviderFixture } from '../../../../test/support/oidc-provider';
import { start, type RunningGateway } from '../../src/composition';
import { loadGatewayConfig } from '../../src/config';

// Three systems, a provider or two, and a few in-process gateways on a busy 2-core machine.
jest.setTimeout(180_000);

/*
 * Single sign-on through the gateway (docs/identity.md, "Single sign-on"),
 * against a real OpenID provider (oidc-provider, test/support/
 * oidc-provider-fixture.mjs) on loopback: the browser's part is played by
 * hand (redirects followed, the provider's login and consent forms posted,
 * cookies carried), so every answer is seen as a browser would see it.
 *
 * Expiry is shown with an in-process gateway whose cookie clock the test
 * moves; it shares the system's services.
 */

const CLIENT_ID = 'training-sandbox';
const ADA = { login: 'ada', password: 'correct horse battery' };
const GRACE = { login: 'grace', password: 'correct horse battery' };
const COOKIE_KEY = randomBytes(32).toString('base64url');

/** The portal's own hash after a sign-in, and the sign-in screen's with an error. */
const SIGNED_IN = /\/portal\/#\/apps\?sso=signed_in$/;
const ssoError = (url: URL) => new URLSearchParams(url.hash.replace(/^#\/sign-in\?/, '')).get('sso_error');
const isPortal = (url: URL) => url.pathname.endsWith('/portal/');

const setCookies = (res: RawResponse | undefined) => [res?.headers['set-cookie'] ?? []].flat();
const cookieNamed = (res: RawResponse | undefined, name: string) => setCookies(res).find((line) => line.startsWith(`${name}=`));

/** Through the sign-in at `baseUrl`: start, the provider's pages, the callback; answers where the browser ended and how. */
async function signIn(baseUrl: string, account = ADA, browser = new HandBrowser()) {
  const started = await browser.request(new URL(`${baseUrl}/api/auth/sso/start`));
  const provider = new URL(String(started.headers.location), baseUrl);
  const loginPage = await browser.follow(provider, { stopAt: isPortal });
  const back = await signInAtProvider(browser, { url: loginPage.url, response: loginPage.response! }, account, isPortal);
  const callback = browser.visits.find((v) => v.url.pathname === '/api/auth/sso/callback')!;
  return { browser, started, provider, landed: back.url, callback };
}

/** What the portal does once it lands: POST /api/auth/sso/session, as a same-origin fetch with its cookies. */
const pickUp = (baseUrl: string, browser: HandBrowser) =>
  browser.request(new URL(`${baseUrl}/api/auth/sso/session`), { method: 'POST', headers: { 'Sec-Fetch-Site': 'same-origin' } });

/**
 * An in-process gateway in front of the system's services, with SSO settings
 * of its own (its answers are recorded with the system's, so they are held
 * to the same document).
 */
async function inProcessGateway(system: RunningSystem, env: NodeJS.ProcessEnv, clock?: () => number): Promise<RunningGateway> {
  return start(loadGatewayConfig({ ...system.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env }), { ssoClock: clock });
}

describe('single sign-on, SIGNUP=closed, a public client (PKCE)', () => {
  let provider: OidcProviderFixture;
  let system: RunningSystem;
  let mongoUrl: string;
  let now = Date.now();
  let clocked: RunningGateway;
  let misconfigured: RunningGateway;
  let unreachable: RunningGateway;
  let unreachablePort: number;
  const base = () => system.baseUrl;

  beforeAll(async () => {
    provider = await startOidcProvider();
    mongoUrl = isolatedMongoUrl('sso');
    system = await startSystem(
      {
        MONGO_URL: mongoUrl,
        REDIS_URL: requireStoreUrls().redisUrl,
        SIGNUP: 'closed',
        EXTERNAL_IDP_ISSUER: provider.issuer,
        EXTERNAL_IDP_JWKS_URL: provider.jwksUrl,
        // EXTERNAL_IDP_AUDIENCE left unset: the launcher gives identity SSO_CLIENT_ID.
        SSO_CLIENT_ID: CLIENT_ID,
        SSO_PROVIDER_NAME: 'Campus login',
        SSO_COOKIE_KEY: COOKIE_KEY,
        // Grace's provider groups make her an operator (the fixture's accounts), so she can run a class below.
        OPERATOR_GROUPS: 'sandbox-operators',
      },
      120_000,
    );
    clocked = await inProcessGateway(system, {}, () => now);
    // Identity expects CLIENT_ID as the audience; this gateway signs in as another client of the same provider.
    misconfigured = await inProcessGateway(system, { SSO_CLIENT_ID: 'another-client' });
    unreachablePort = await freePort();
    unreachable = await inProcessGateway(system, { EXTERNAL_IDP_ISSUER: `http://127.0.0.1:${unreachablePort}` });
    const callbacks = (...urls: string[]) => urls.map((url) => `${url}/api/auth/sso/callback`);
    await provider.registerClient({
      client_id: CLIENT_ID,
      token_endpoint_auth_method: 'none',
      redirect_uris: callbacks(base(), clocked.url),
      grant_types: ['authorization_code'],
      response_types: ['code'],
    });
    await provider.registerClient({
      client_id: 'another-client',
      token_endpoint_auth_method: 'none',
      redirect_uris: callbacks(misconfigured.url),
      grant_types: ['authorization_code'],
      response_types: ['code'],
    });
  });

  afterAll(async () => {
    await Promise.all([clocked?.stop(), misconfigured?.stop(), unreachable?.stop()]);
    await system?.stop();
    await provider?.stop();
    if (mongoUrl) {
      const connection = await mongoose.createConnection(mongoUrl).asPromise();
      await connection.db?.dropDatabase();
      await connection.close();
    }
  });

  it('when the sign-in screen asks what it offers, then sign-up is closed, passwords sign in, and SSO is named with its start URL', async () => {
    const res = await apiRequest(base(), 'GET', '/api/auth/options');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ signUp: 'closed', domains: [], localSignIn: true, sso: { name: 'Campus login', startUrl: `${base()}/api/auth/sso/start` } });
  });

  it('when a learner signs in through the provider, then a session reaches the page through a cookie only its own call reads, works for /api/me and apps, and ends at logout', async () => {
    const { browser, started, provider: authorize, landed, callback } = await signIn(base());

    // To the provider: authorization code, PKCE S256, state and nonce; the callback's URL as redirect_uri.
    expect(started.status).toBe(303);
    expect(started.headers['cache-control']).toBe('no-store');
    expect(started.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(authorize.origin).toBe(provider.issuer);
    expect(Object.fromEntries(authorize.searchParams)).toEqual({
      client_id: CLIENT_ID,
      response_type: 'code',
      redirect_uri: `${base()}/api/auth/sso/callback`,
      scope: 'openid email profile',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
      state: expect.stringMatching(/^[\w-]{20,}$/),
      nonce: expect.stringMatching(/^[\w-]{20,}$/),
    });
    expect(cookieNamed(started, 'sandbox_sso_flow')).toMatch(
      /^sandbox_sso_flow=[\w-]+(\.[\w-]*){4}; Path=\/api\/auth\/sso\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );

    // Back: to the portal, the flow cookie spent and the session waiting in a Strict cookie for the session path only.
    expect(callback.response.status).toBe(303);
    expect(String(callback.response.headers.location)).toBe('../../../portal/#/apps?sso=signed_in');
    expect(landed.href).toMatch(SIGNED_IN);
    expect(cookieNamed(callback.response, 'sandbox_sso_flow')).toBe('sandbox_sso_flow=; Path=/api/auth/sso/callback; Max-Age=0; HttpOnly; SameSite=Lax');
    expect(cookieNamed(callback.response, 'sandbox_sso_handoff')).toMatch(
      /^sandbox_sso_handoff=[\w.-]+; Path=\/api\/auth\/sso\/session; Max-Age=60; HttpOnly; SameSite=Strict$/,
    );

    // The page picks it up, once.
    const picked = await pickUp(base(), browser);
    expect(picked.status).toBe(200);
    expect(picked.headers['cache-control']).toBe('no-store');
    const { token, expiresAt } = picked.json();
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(3000_000);
    expect(cookieNamed(picked, 'sandbox_sso_handoff')).toBe('sandbox_sso_handoff=; Path=/api/auth/sso/session; Max-Age=0; HttpOnly; SameSite=Strict');
    const again = await pickUp(base(), browser);
    expect({ status: again.status, code: again.json().error.code }).toEqual({ status: 404, code: 'no_sso_session' });
    // The token never travelled in a URL.
    for (const visit of browser.visits) {
      expect(visit.url.href.includes(token)).toBe(false);
      expect(String(visit.response.headers.location ?? '').includes(token)).toBe(false);
    }

    // The provider's ID token is the session: identity verifies it on every call, SIGNUP=closed notwithstanding.
    const me = await apiRequest(base(), 'GET', '/api/me', { token });
    expect(me.status).toBe(200);
    expect(me.json()).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      email: 'ada@campus.example',
      provider: provider.issuer,
      createdAt: expect.any(String),
      operator: false,
    });
    const app = await apiRequest(base(), 'POST', '/api/apps', { token, body: { name: 'signed in through the campus' } });
    expect(app.status).toBe(201);
    expect(
      (await apiRequest(base(), 'POST', '/api/auth/register', { body: { email: 'bob@campus.example', password: 'correct horse battery' } })).json().error.code,
    ).toBe('signup_closed');

    expect((await apiRequest(base(), 'POST', '/api/auth/logout', { token })).status).toBe(200);
    const after = await apiRequest(base(), 'GET', '/api/me', { token });
    expect({ status: after.status, code: after.json().error.code }).toEqual({ status: 401, code: 'session_ended' });
  });

  it('when a second sign-in of the same person comes back, then it is the same user (keyed by issuer and sub)', async () => {
    const first = await signIn(base(), GRACE);
    const second = await signIn(base(), GRACE);
    const ids = [];
    for (const { browser } of [first, second]) {
      const { token } = (await pickUp(base(), browser)).json();
      ids.push((await apiRequest(base(), 'GET', '/api/me', { token })).json().id);
    }
    expect(ids[0]).toBe(ids[1]);
  });

  it('when a class is for a provider group, then a learner whose sign-in carried that group joins, and one for another group is refused naming it (issue #37)', async () => {
    const sessionOf = async (account: typeof ADA) => (await pickUp(base(), (await signIn(base(), account)).browser)).json().token as string;
    const [instructor, learner] = [await sessionOf(GRACE), await sessionOf(ADA)];
    const classFor = async (ssoGroup: string) => {
      const created = await apiRequest(base(), 'POST', '/api/admin/classes', {
        token: instructor,
        body: { name: `for ${ssoGroup}`, startsAt: '2020-01-01T00:00:00Z', endsAt: '2100-01-01T00:00:00Z', ssoGroup },
      });
      expect(created.status).toBe(201);
      return created.json().joinCode as string;
    };
    const join = (code: string) => apiRequest(base(), 'POST', '/api/classes/join', { token: learner, body: { code } });

    expect((await join(await classFor('learners'))).status).toBe(200);
    const refused = await join(await classFor('staff'));
    expect(refused.status).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 'class_group_required', message: expect.stringContaining('"staff"') });
  });

  it("when the provider's token is sent where the production-credential guard looks, then it passes (its issuer is the configured one)", async () => {
    const { browser } = await signIn(base());
    const { token } = (await pickUp(base(), browser)).json();
    const echoed = await rawRequest(`${base()}/playground/echo?id_token=${token}`, { headers: { 'X-Id-Token': token } });
    expect(echoed.status).toBe(200);
    // That issuer is a loopback one, which the guard never refuses anyway. A real provider's is https on a
    // real host: configured as the issuer, its JWTs pass the guard; another provider's are refused.
    const campus = 'https://login.campus-idp.org';
    const guarded = await inProcessGateway(system, { EXTERNAL_IDP_ISSUER: campus, SSO_CLIENT_ID: 'training-sandbox' });
    try {
      const { privateKey } = await generateKeyPair('RS256');
      const jwt = (iss: string) =>
        new SignJWT({ email: 'ada@campus.example' })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer(iss)
          .setAudience(CLIENT_ID)
          .setSubject('ada')
          .setExpirationTime('10m')
          .sign(privateKey);
      const ours = await rawRequest(`${guarded.url}/playground/echo?id_token=${await jwt(campus)}`, { headers: { 'X-Id-Token': await jwt(campus) } });
      expect(ours.status).toBe(200);
      const foreign = await rawRequest(`${guarded.url}/playground/echo`, { headers: { 'X-Id-Token': await jwt('https://login.other-university.org') } });
      expect({ status: foreign.status, code: foreign.json().error.code }).toEqual({ status: 400, code: 'production_credential_refused' });
    } finally {
      await guarded.stop();
    }
  });

  it('when a token comes from an issuer identity does not trust, or claims the trusted issuer without its key, then 401', async () => {
    // A real ID token from another provider: its own client, PKCE and a code redeemed by hand.
    const stranger = await startOidcProvider();
    try {
      const redirectUri = 'http://127.0.0.1:9/callback';
      await stranger.registerClient({ client_id: CLIENT_ID, token_endpoint_auth_method: 'none', redirect_uris: [redirectUri] });
      const { verifier, challenge } = pkcePair();
      const browser = new HandBrowser();
      const authorize = new URL(`${stranger.issuer}/auth`);
      Object.entries({
        client_id: CLIENT_ID,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: 'openid email',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's',
        nonce: 'n',
      }).forEach(([k, v]) => authorize.searchParams.set(k, v));
      const loginPage = await browser.follow(authorize);
      const back = await signInAtProvider(browser, { url: loginPage.url, response: loginPage.response! }, ADA, (url) => url.href.startsWith(redirectUri));
      const code = back.url.searchParams.get('code')!;
      const tokens = await rawRequest(`${stranger.issuer}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          client_id: CLIENT_ID,
        }).toString(),
      });
      const idToken = tokens.json().id_token as string;
      expect(idToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const refused = await apiRequest(base(), 'GET', '/api/me', { token: idToken });
      expect({ status: refused.status, code: refused.json().error.code }).toEqual({ status: 401, code: 'invalid_session' });
    } finally {
      await stranger.stop();
    }
    // The trusted issuer's name on a token signed with another key.
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const kid = (await exportJWK(publicKey)).n!.slice(0, 8);
    const forged = await new SignJWT({ email: 'mallory@campus.example' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(provider.issuer)
      .setAudience(CLIENT_ID)
      .setSubject('ada')
      .setExpirationTime('10m')
      .sign(privateKey);
    const refused = await apiRequest(base(), 'GET', '/api/me', { token: forged });
    expect({ status: refused.status, code: refused.json().error.code }).toEqual({ status: 401, code: 'invalid_session' });
  });

  it("when the callback's state is not the one this browser was sent with, then back to sign-in with state_mismatch, and the sign-in is spent", async () => {
    const browser = new HandBrowser();
    await browser.request(new URL(`${base()}/api/auth/sso/start`));
    const res = await browser.request(new URL(`${base()}/api/auth/sso/callback?code=abc&state=someone-elses`));
    expect(res.status).toBe(303);
    expect(ssoError(new URL(String(res.headers.location), base()))).toBe('state_mismatch');
    expect(cookieNamed(res, 'sandbox_sso_flow')).toMatch(/^sandbox_sso_flow=; .*Max-Age=0/);
  });

  it('when a callback is replayed, then it is refused: without the spent cookie no_transaction, with a copy of it code_rejected (the code is single use)', async () => {
    const browser = new HandBrowser();
    const started = await browser.request(new URL(`${base()}/api/auth/sso/start`));
    const kept = browser.jar.get('sandbox_sso_flow')!;
    const loginPage = await browser.follow(new URL(String(started.headers.location)), { stopAt: isPortal });
    await signInAtProvider(browser, { url: loginPage.url, response: loginPage.response! }, ADA, isPortal);
    const callback = browser.visits.find((v) => v.url.pathname === '/api/auth/sso/callback')!;
    expect(String(callback.response.headers.location)).toMatch(SIGNED_IN);

    // The browser's back button: the cookie went with the first visit.
    const again = await browser.request(callback.url);
    expect(ssoError(new URL(String(again.headers.location), base()))).toBe('no_transaction');
    // Someone who copied the cookie too: the provider will not redeem the code twice.
    const copied = await rawRequest(callback.url.href, { headers: { Cookie: `sandbox_sso_flow=${kept}` } });
    expect(ssoError(new URL(String(copied.headers.location), base()))).toBe('code_rejected');
  });

  it('when the sign-in takes longer than 10 minutes, then back to sign-in with expired', async () => {
    const browser = new HandBrowser();
    const started = await browser.request(new URL(`${clocked.url}/api/auth/sso/start`));
    const loginPage = await browser.follow(new URL(String(started.headers.location)), { stopAt: isPortal });
    now += 601_000;
    try {
      await signInAtProvider(browser, { url: loginPage.url, response: loginPage.response! }, ADA, isPortal);
    } finally {
      now -= 601_000;
    }
    const callback = browser.visits.find((v) => v.url.pathname === '/api/auth/sso/callback')!;
    expect(ssoError(new URL(String(callback.response.headers.location), clocked.url))).toBe('expired');
  });

  it('when the sign-in handed over is not picked up within a minute, then there is nothing to pick up', async () => {
    const { browser } = await signIn(clocked.url);
    now += 61_000;
    try {
      const late = await pickUp(clocked.url, browser);
      expect({ status: late.status, code: late.json().error.code }).toEqual({ status: 404, code: 'no_sso_session' });
    } finally {
      now -= 61_000;
    }
  });

  it('when the sealed cookie is tampered with, then it is not trusted (no_transaction)', async () => {
    const browser = new HandBrowser();
    await browser.request(new URL(`${base()}/api/auth/sso/start`));
    const sealed = browser.jar.get('sandbox_sso_flow')!;
    const parts = sealed.split('.');
    parts[3] = `${parts[3]![0] === 'A' ? 'B' : 'A'}${parts[3]!.slice(1)}`;
    const res = await rawRequest(`${base()}/api/auth/sso/callback?code=x&state=y`, { headers: { Cookie: `sandbox_sso_flow=${parts.join('.')}` } });
    expect(ssoError(new URL(String(res.headers.location), base()))).toBe('no_transaction');
  });

  it("when the person cancels at the provider, then back to sign-in with access_denied and the provider's words", async () => {
    const browser = new HandBrowser();
    const started = await browser.request(new URL(`${base()}/api/auth/sso/start`));
    const loginPage = await browser.follow(new URL(String(started.headers.location)), { stopAt: isPortal });
    const back = await browser.follow(HandBrowser.link(loginPage.response!.body, 'Cancel', loginPage.url), { stopAt: isPortal });
    const params = new URLSearchParams(back.url.hash.replace(/^#\/sign-in\?/, ''));
    expect(Object.fromEntries(params)).toEqual({ sso_error: 'access_denied', sso_error_description: 'The person cancelled the sign-in.' });
  });

  it("when identity refuses the provider's token (its audience is another client's), then back to sign-in with token_refused, before any session reaches the page", async () => {
    const { landed, browser } = await signIn(misconfigured.url);
    expect(ssoError(landed)).toBe('token_refused');
    expect(browser.jar.get('sandbox_sso_handoff')).toBeUndefined();
  });

  it('when the provider cannot be reached, then back to sign-in with provider_unavailable; once it is up, sign-ins go to it without a restart', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await rawRequest(`${unreachable.url}/api/auth/sso/start`);
      expect(res.status).toBe(303);
      expect(ssoError(new URL(String(res.headers.location), unreachable.url))).toBe('provider_unavailable');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const late = await startOidcProvider({ FIXTURE_PORT: String(unreachablePort) });
    try {
      // Discovery is tried again 2 s after a failure.
      const { value } = await eventually(
        () => rawRequest(`${unreachable.url}/api/auth/sso/start`),
        (res) => String(res.headers.location).startsWith(late.issuer),
        15_000,
        250,
      );
      expect(cookieNamed(value, 'sandbox_sso_flow')).toBeDefined();
    } finally {
      await late.stop();
    }
  });

  it('when another site makes the page-side call, then 403 and nothing is handed over', async () => {
    const res = await apiRequest(base(), 'POST', '/api/auth/sso/session', { headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect({ status: res.status, code: res.json().error.code }).toEqual({ status: 403, code: 'cross_site_request' });
  });
});

describe('single sign-on with a client secret, SIGNUP=open', () => {
  let provider: OidcProviderFixture;
  let system: RunningSystem;

  beforeAll(async () => {
    provider = await startOidcProvider();
    system = await startSystem({
      EXTERNAL_IDP_ISSUER: provider.issuer,
      EXTERNAL_IDP_JWKS_URL: provider.jwksUrl,
      SSO_CLIENT_ID: 'training-sandbox-confidential',
      SSO_CLIENT_SECRET: 'a secret of at least thirty-two characters',
    });
    await provider.registerClient({
      client_id: 'training-sandbox-confidential',
      client_secret: 'a secret of at least thirty-two characters',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [`${system.baseUrl}/api/auth/sso/callback`],
    });
  });
  afterAll(async () => {
    await system?.stop();
    await provider?.stop();
  });

  it("when the sign-in screen asks, then sign-up is open and SSO is named after the issuer's host", async () => {
    const res = await apiRequest(system.baseUrl, 'GET', '/api/auth/options');
    expect(res.json()).toEqual({
      signUp: 'open',
      domains: [],
      localSignIn: true,
      sso: { name: new URL(provider.issuer).host, startUrl: `${system.baseUrl}/api/auth/sso/start` },
    });
  });

  it('when a learner signs in, then the gateway authenticates to the token endpoint and the session works', async () => {
    const { browser, landed } = await signIn(system.baseUrl, GRACE);
    expect(landed.href).toMatch(SIGNED_IN);
    const { token } = (await pickUp(system.baseUrl, browser)).json();
    expect((await apiRequest(system.baseUrl, 'GET', '/api/me', { token })).json().email).toBe('grace@campus.example');
  });
});

describe('without single sign-on, SIGNUP=domain', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ SIGNUP: 'domain', SIGNUP_DOMAINS: 'example.edu,campus.example' });
  });
  afterAll(async () => system?.stop());

  it('when the sign-in screen asks, then it hears the allowed domains and no SSO', async () => {
    const res = await apiRequest(system.baseUrl, 'GET', '/api/auth/options');
    expect(res.json()).toEqual({ signUp: 'domain', domains: ['example.edu', 'campus.example'], localSignIn: true, sso: null });
  });

  it('when the SSO routes are called anyway, then start and callback lead back to sign-in with sso_off, and there is no session to pick up', async () => {
    for (const path of ['/api/auth/sso/start', '/api/auth/sso/callback?code=x&state=y']) {
      const res = await rawRequest(`${system.baseUrl}${path}`);
      expect(res.status).toBe(303);
      expect(String(res.headers.location)).toBe('../../../portal/#/sign-in?sso_error=sso_off');
    }
    const res = await apiRequest(system.baseUrl, 'POST', '/api/auth/sso/session');
    expect({ status: res.status, code: res.json().error.code }).toEqual({ status: 404, code: 'sso_not_configured' });
  });
});
