import { createHash, createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import OAuth from 'oauth-1.0a';
import {
  apiRequest,
  createApp,
  eventually,
  isolatedMongoUrl,
  rawRequest,
  registerUser,
  requireStoreUrls,
  startSystem,
  type CreatedApp,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';

jest.setTimeout(240_000);

/*
 * Issue #32, "read your writes": after a change made through the portal API
 * (or an operator's) answers 2xx, the very next request through any gateway
 * replica sees it. Two launchers, each a whole one-replica sandbox, share the
 * stores and every key (as replica-flows.test.ts), so gateway A reaches only
 * identity#1 and oauth#1, and gateway B only identity#2 and oauth#2: a change
 * made through A reaches B's caches only through the change feed (Redis), and
 * a refusal on what B remembers stands only after a fresh read.
 *
 * Each case first uses the old state through B and A, so that B's gateway,
 * identity#2 and oauth#2 all remember it (each for at most 500 ms), then
 * makes the change through A and, on the answer, uses the new state through
 * B, then A. Nothing waits between the change and its use.
 */

const PUBLIC = 'http://sandbox.read-your-writes.test';
const REDIRECT = 'http://127.0.0.1:9/callback';
const OPERATOR = `ops-${randomBytes(3).toString('hex')}@example.org`;
const PASSWORD = 'correct horse battery';

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
let lastHmacSecond = Infinity;
/**
 * A timestamp of its own for each HMAC signature of this file: now, or one
 * second before the last one if that is earlier. The few dozen signatures
 * stay well inside the 300 s window, and none repeats (which is a replay).
 */
const nextHmacSecond = () => (lastHmacSecond = Math.min(Math.floor(Date.now() / 1000), lastHmacSecond - 1));

describe('read your writes: a change answered 2xx through gateway A is seen by the very next request through gateway B, and A', () => {
  let one: RunningSystem;
  let two: RunningSystem;
  let A: string;
  let B: string;
  let operator: string;

  beforeAll(async () => {
    const { redisUrl } = requireStoreUrls();
    const shared: NodeJS.ProcessEnv = {
      MONGO_URL: isolatedMongoUrl('read_your_writes'),
      REDIS_URL: redisUrl,
      PUBLIC_BASE_URL: PUBLIC,
      OPERATOR_EMAILS: OPERATOR,
      CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      SESSION_SIGNING_KEY: randomBytes(32).toString('base64url'),
      PAGE_TOKEN_KEY: randomBytes(32).toString('base64url'),
      JWT_SIGNING_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    // One after the other: ten processes starting at once on a busy 2-core machine only risk the start-up timeout.
    one = await startSystem(shared, { timeoutMs: 90_000 });
    two = await startSystem(shared, { timeoutMs: 90_000 });
    [A, B] = [one.baseUrl, two.baseUrl];
    const registered = await apiRequest(A, 'POST', '/api/auth/register', { body: { email: OPERATOR, password: PASSWORD } });
    expect(registered.status).toBe(201);
    operator = registered.json().token;
  }, 240_000);
  afterAll(async () => Promise.all([one?.stop(), two?.stop()]));

  // What a learner's client sends, through one gateway; each resolves to the answer.
  const form = (gateway: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    rawRequest(`${gateway}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  const basicOf = (appId: string, secret: string) => `Basic ${Buffer.from(`${appId}:${secret}`).toString('base64')}`;
  const withApiKey = (gateway: string, apiKey: string) => rawRequest(`${gateway}/playground/auth/api-key`, { headers: { 'x-api-key': apiKey } });
  const withBearer = (gateway: string, token: string) => rawRequest(`${gateway}/playground/auth/bearer`, { headers: { Authorization: `Bearer ${token}` } });
  const withBasic = (gateway: string, appId: string, secret: string) =>
    rawRequest(`${gateway}/playground/auth/basic`, { headers: { Authorization: basicOf(appId, secret) } });
  const withAccessToken = (gateway: string, access: string) =>
    rawRequest(`${gateway}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${access}` } });
  const tokenFor = (gateway: string, appId: string, secret: string, fields: Record<string, string> = {}) =>
    form(gateway, '/oauth/token', { grant_type: 'client_credentials', ...fields }, { Authorization: basicOf(appId, secret) });
  const dataPage = (gateway: string, apiKey: string, pack = 'stocks', entity = 'tickers') =>
    rawRequest(`${gateway}/playground/data/${pack}/${entity}?page_size=1`, { headers: { 'x-api-key': apiKey } });
  /** An HMAC request signed with `apiKey`, with a timestamp of its own. */
  const withHmac = (gateway: string, appId: string, apiKey: string) => {
    const timestamp = String(nextHmacSecond());
    const signature = createHmac('sha256', apiKey).update(`${timestamp}.GET./playground/auth/hmac`).digest('hex');
    return rawRequest(`${gateway}/playground/auth/hmac`, { headers: { 'x-app-id': appId, 'x-timestamp': timestamp, 'x-signature': signature } });
  };
  /** A playground JWT a learner signs with their API key (HS256, jose). */
  const withOwnJwt = async (gateway: string, appId: string, apiKey: string, scope: string) => {
    const jwt = await new SignJWT({ scope })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(appId)
      .setAudience('urn:training-sandbox:playground')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(apiKey));
    return rawRequest(`${gateway}/playground/auth/jwt`, { headers: { Authorization: `Bearer ${jwt}` } });
  };
  /** OAuth 1.0a's first leg, signed by the oauth-1.0a library with the app's API key as the consumer secret (a new nonce each call). */
  const requestToken = (gateway: string, appId: string, apiKey: string) => {
    const signer = new OAuth({
      consumer: { key: appId, secret: apiKey },
      signature_method: 'HMAC-SHA1',
      hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
    });
    const data = { oauth_callback: 'oob' };
    const authorization = signer.toHeader(signer.authorize({ url: `${PUBLIC}/oauth1/request_token`, method: 'POST', data })).Authorization;
    // oauth_callback travels in the header the library wrote (sent in the body too, it would be a repeated parameter).
    return rawRequest(`${gateway}/oauth1/request_token`, { method: 'POST', headers: { Authorization: authorization } });
  };
  /** The authorization endpoint, read by hand: 302 to the redirect URI (with a code, or a redirected error), or an error page. */
  const authorize = (gateway: string, appId: string, params: Record<string, string> = {}) =>
    rawRequest(
      `${gateway}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: appId, redirect_uri: REDIRECT, state: 'st', code_challenge: s256(randomBytes(32).toString('base64url')), code_challenge_method: 'S256', ...params })}`,
    );
  /** What an authorize answer came to: a code, a redirected error, or a refusal shown by the gateway. */
  const authorized = (res: RawResponse) => {
    if (res.status !== 302) return `${res.status} ${res.json().error}`;
    const params = new URL(String(res.headers.location)).searchParams;
    return params.get('code') ? 'code' : `redirected ${params.get('error')}`;
  };

  /** Statuses by name, so a failure shows every request of the step at once. */
  const statuses = async (requests: Record<string, () => Promise<RawResponse>>) => {
    const seen: Record<string, number> = {};
    // One after the other, in the order written: the first is the very next request after the change.
    for (const [name, send] of Object.entries(requests)) seen[name] = (await send()).status;
    return seen;
  };
  const same = <T>(value: T) => ({ B: value, A: value });
  const onBoth = (request: (gateway: string) => Promise<RawResponse>) => ({ B: () => request(B), A: () => request(A) });
  const statusesOnBoth = async (request: (gateway: string) => Promise<RawResponse>) => statuses(onBoth(request));

  const learnerWithApp = async (options: { scopes?: string[] } = {}) => {
    const session = await registerUser(A);
    const app = await createApp(B, session, options);
    return { session, app };
  };
  const change = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await apiRequest(A, method, path, { token, ...(body === undefined ? {} : { body }) });
    expect({ change: `${method} ${path}`, status: res.status }).toEqual({ change: `${method} ${path}`, status: 200 });
    return res;
  };

  // Every path once through both gateways first, so that no case's first steps are slowed past the caches' 500 ms by a cold process.
  beforeAll(async () => {
    const { session, app } = await learnerWithApp();
    await change('PUT', `/api/apps/${app.id}/redirect-uris`, session, { redirectUris: [REDIRECT] });
    for (const gateway of [B, A]) {
      await statuses({
        authorize: () => authorize(gateway, app.appId),
        token: () => tokenFor(gateway, app.appId, app.appSecret),
        apiKey: () => withApiKey(gateway, app.apiKey),
        hmac: () => withHmac(gateway, app.appId, app.apiKey),
        data: () => dataPage(gateway, app.apiKey),
      });
    }
  });

  describe('redirect URIs', () => {
    it('registered through A: /oauth/authorize with it succeeds at once through B and A, though both had just refused it; removed, it is refused at once', async () => {
      const { session, app } = await learnerWithApp();
      // oauth#2 and oauth#1 now remember the app without a redirect URI.
      expect(authorized(await authorize(B, app.appId))).toBe('400 invalid_request');
      expect(authorized(await authorize(A, app.appId))).toBe('400 invalid_request');

      await change('PUT', `/api/apps/${app.id}/redirect-uris`, session, { redirectUris: [REDIRECT] });
      expect({ B: authorized(await authorize(B, app.appId)), A: authorized(await authorize(A, app.appId)) }).toEqual(same('code'));

      // Both now remember the app with the URI: taking it away must reach them too.
      await change('PUT', `/api/apps/${app.id}/redirect-uris`, session, { redirectUris: ['http://127.0.0.1:9/elsewhere'] });
      expect({ B: authorized(await authorize(B, app.appId)), A: authorized(await authorize(A, app.appId)) }).toEqual(same('400 invalid_request'));
    });
  });

  describe('scopes', () => {
    it('given through A: the data pack, a client_credentials token and an authorization for the scope work at once through B and A; taken away, each is refused at once', async () => {
      const { session, app } = await learnerWithApp({ scopes: ['hr:read'] });
      await change('PUT', `/api/apps/${app.id}/redirect-uris`, session, { redirectUris: [REDIRECT] });
      const stocks = { scope: 'stocks:read' };
      // Refused on the app's remembered scopes in B's gateway, identity#2 and oauth#2 (and A's).
      expect(await statusesOnBoth((gateway) => dataPage(gateway, app.apiKey))).toEqual(same(403));
      expect(await statusesOnBoth((gateway) => tokenFor(gateway, app.appId, app.appSecret, stocks))).toEqual(same(400));
      expect({ B: authorized(await authorize(B, app.appId, stocks)), A: authorized(await authorize(A, app.appId, stocks)) }).toEqual(
        same('redirected invalid_scope'),
      );

      await change('PUT', `/api/apps/${app.id}/scopes`, session, { scopes: ['hr:read', 'stocks:read'] });
      expect(await statusesOnBoth((gateway) => dataPage(gateway, app.apiKey))).toEqual(same(200));
      expect(await statusesOnBoth((gateway) => tokenFor(gateway, app.appId, app.appSecret, stocks))).toEqual(same(200));
      expect({ B: authorized(await authorize(B, app.appId, stocks)), A: authorized(await authorize(A, app.appId, stocks)) }).toEqual(same('code'));
      const access = (await tokenFor(A, app.appId, app.appSecret, stocks)).json().access_token as string;
      expect((await rawRequest(`${B}/playground/data/stocks/tickers?page_size=1`, { headers: { Authorization: `Bearer ${access}` } })).status).toBe(200);

      await change('PUT', `/api/apps/${app.id}/scopes`, session, { scopes: ['hr:read'] });
      expect(await statusesOnBoth((gateway) => dataPage(gateway, app.apiKey))).toEqual(same(403));
      expect(await statusesOnBoth((gateway) => tokenFor(gateway, app.appId, app.appSecret, stocks))).toEqual(same(400));
      expect({ B: authorized(await authorize(B, app.appId, stocks)), A: authorized(await authorize(A, app.appId, stocks)) }).toEqual(
        same('redirected invalid_scope'),
      );
      // The token issued with the scope no longer reaches the pack (the app no longer holds it).
      expect(
        await statusesOnBoth((gateway) =>
          rawRequest(`${gateway}/playground/data/stocks/tickers?page_size=1`, { headers: { Authorization: `Bearer ${access}` } }),
        ),
      ).toEqual(same(403));
    });
  });

  describe('credential rotation', () => {
    it('API key and bearer token rotated through A: the old ones are refused at once through B and A in every style that uses them, the new ones accepted at once', async () => {
      const { session, app } = await learnerWithApp({ scopes: ['hr:read'] });
      const old = (gateway: string) => ({
        apiKey: () => withApiKey(gateway, app.apiKey),
        bearer: () => withBearer(gateway, app.bearerToken),
        hmac: () => withHmac(gateway, app.appId, app.apiKey),
        jwt: () => withOwnJwt(gateway, app.appId, app.apiKey, 'hr:read'),
        oauth1: () => requestToken(gateway, app.appId, app.apiKey),
      });
      const accepted = { apiKey: 200, bearer: 200, hmac: 200, jwt: 200, oauth1: 200 };
      expect({ B: await statuses(old(B)), A: await statuses(old(A)) }).toEqual(same(accepted));

      const rotated = (await change('POST', `/api/apps/${app.id}/rotate`, session, { apiKey: true, bearer: true })).json() as CreatedApp;
      expect(rotated.apiKey).not.toBe(app.apiKey);
      const fresh = (gateway: string) => ({
        apiKey: () => withApiKey(gateway, rotated.apiKey),
        bearer: () => withBearer(gateway, rotated.bearerToken),
        hmac: () => withHmac(gateway, app.appId, rotated.apiKey),
        jwt: () => withOwnJwt(gateway, app.appId, rotated.apiKey, 'hr:read'),
        oauth1: () => requestToken(gateway, app.appId, rotated.apiKey),
      });
      const refused = { apiKey: 401, bearer: 401, hmac: 401, jwt: 401, oauth1: 401 };
      expect({ B: await statuses(old(B)), A: await statuses(old(A)) }).toEqual(same(refused));
      expect({ B: await statuses(fresh(B)), A: await statuses(fresh(A)) }).toEqual(same(accepted));
    });

    it('a new key used first: rotated through A, the new API key is accepted at once through B in every style, and then the old one refused', async () => {
      const { session, app } = await learnerWithApp({ scopes: ['hr:read'] });
      expect(
        await statuses({
          apiKey: () => withApiKey(B, app.apiKey),
          hmac: () => withHmac(B, app.appId, app.apiKey),
          oauth1: () => requestToken(B, app.appId, app.apiKey),
        }),
      ).toEqual({ apiKey: 200, hmac: 200, oauth1: 200 });
      const rotated = (await change('POST', `/api/apps/${app.id}/rotate`, session, { apiKey: true })).json() as CreatedApp;
      // oauth#2 remembers the old key: a signature with the new one must make it read the key again, not refuse.
      expect(
        await statuses({
          hmac: () => withHmac(B, app.appId, rotated.apiKey),
          oauth1: () => requestToken(B, app.appId, rotated.apiKey),
          jwt: () => withOwnJwt(B, app.appId, rotated.apiKey, 'hr:read'),
          apiKey: () => withApiKey(B, rotated.apiKey),
          oldApiKey: () => withApiKey(B, app.apiKey),
          oldHmac: () => withHmac(B, app.appId, app.apiKey),
        }),
      ).toEqual({ hmac: 200, oauth1: 200, jwt: 200, apiKey: 200, oldApiKey: 401, oldHmac: 401 });
    });
  });

  describe('secret regeneration', () => {
    it('regenerated through A: the new App Secret gets a token and passes Basic at once through B and A; the old one is refused at once', async () => {
      const { session, app } = await learnerWithApp();
      const withSecret = (secret: string) => async (gateway: string) => ({
        basic: (await withBasic(gateway, app.appId, secret)).status,
        token: (await tokenFor(gateway, app.appId, secret)).status,
      });
      expect({ B: await withSecret(app.appSecret)(B), A: await withSecret(app.appSecret)(A) }).toEqual(same({ basic: 200, token: 200 }));

      const regenerated = (await change('POST', `/api/apps/${app.id}/secret`, session)).json() as CreatedApp;
      expect({ B: await withSecret(regenerated.appSecret)(B), A: await withSecret(regenerated.appSecret)(A) }).toEqual(same({ basic: 200, token: 200 }));
      expect({ B: await withSecret(app.appSecret)(B), A: await withSecret(app.appSecret)(A) }).toEqual(same({ basic: 401, token: 401 }));
    });
  });

  describe('token revocation', () => {
    it('an access token revoked through A is refused at once through B and A, though both had just accepted it', async () => {
      const { app } = await learnerWithApp();
      const access = (await tokenFor(A, app.appId, app.appSecret)).json().access_token as string;
      expect(await statusesOnBoth((gateway) => withAccessToken(gateway, access))).toEqual(same(200));
      const revoked = await form(A, '/oauth/revoke', { token: access }, { Authorization: basicOf(app.appId, app.appSecret) });
      expect(revoked.status).toBe(200);
      expect(await statusesOnBoth((gateway) => withAccessToken(gateway, access))).toEqual(same(401));
    });

    it('a refresh token revoked through A ends its grant: the access token of the grant is refused at once through B', async () => {
      const { session, app } = await learnerWithApp({ scopes: ['hr:read'] });
      await change('PUT', `/api/apps/${app.id}/redirect-uris`, session, { redirectUris: [REDIRECT] });
      const verifier = randomBytes(32).toString('base64url');
      const code = new URL(String((await authorize(A, app.appId, { code_challenge: s256(verifier) })).headers.location)).searchParams.get('code')!;
      const tokens = (
        await form(
          B,
          '/oauth/token',
          { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
          { Authorization: basicOf(app.appId, app.appSecret) },
        )
      ).json();
      expect(await statusesOnBoth((gateway) => withAccessToken(gateway, tokens.access_token))).toEqual(same(200));
      expect((await form(A, '/oauth/revoke', { token: tokens.refresh_token }, { Authorization: basicOf(app.appId, app.appSecret) })).status).toBe(200);
      expect(await statusesOnBoth((gateway) => withAccessToken(gateway, tokens.access_token))).toEqual(same(401));
    });
  });

  describe('ending an app or its owner', () => {
    /** Every credential of the app in use through `gateway`: each style's status. */
    const everyStyle = (app: CreatedApp, access: string) => async (gateway: string) =>
      statuses({
        apiKey: () => withApiKey(gateway, app.apiKey),
        bearer: () => withBearer(gateway, app.bearerToken),
        basic: () => withBasic(gateway, app.appId, app.appSecret),
        hmac: () => withHmac(gateway, app.appId, app.apiKey),
        oauth2: () => withAccessToken(gateway, access),
      });
    const all = (status: number) => ({ apiKey: status, bearer: status, basic: status, hmac: status, oauth2: status });
    /** An app whose every credential B and A have just accepted. */
    const inUse = async () => {
      const { session, app } = await learnerWithApp({ scopes: ['hr:read'] });
      const access = (await tokenFor(A, app.appId, app.appSecret)).json().access_token as string;
      const use = everyStyle(app, access);
      expect({ B: await use(B), A: await use(A) }).toEqual(same(all(200)));
      return { session, app, use };
    };

    it('revoked through A: every credential is refused at once through B and A', async () => {
      const { session, app, use } = await inUse();
      await change('DELETE', `/api/apps/${app.id}?mode=revoke`, session);
      expect({ B: await use(B), A: await use(A) }).toEqual(same(all(401)));
    });

    it('deleted through A: every credential is refused at once through B and A', async () => {
      const { session, app, use } = await inUse();
      await change('DELETE', `/api/apps/${app.id}`, session);
      expect({ B: await use(B), A: await use(A) }).toEqual(same(all(401)));
    });

    it('the owner reset through A (every app deleted): every credential is refused at once through B and A', async () => {
      const { session, use } = await inUse();
      const reset = await change('POST', '/api/me/reset', session);
      expect(reset.json()).toEqual({ deleted: 1 });
      expect({ B: await use(B), A: await use(A) }).toEqual(same(all(401)));
    });

    it('the owner disabled by an operator through A: refused at once through B and A; enabled again, accepted at once', async () => {
      const { session, use } = await inUse();
      const userId = (await apiRequest(A, 'GET', '/api/me', { token: session })).json().id as string;
      await change('POST', `/api/admin/users/${userId}/disable`, operator);
      expect({ B: await use(B), A: await use(A) }).toEqual(same(all(401)));
      await change('POST', `/api/admin/users/${userId}/enable`, operator);
      expect({ B: await use(B), A: await use(A) }).toEqual(same(all(200)));
    });
  });

  describe("the portal's app list (identity remembers each owner's list for 500 ms)", () => {
    const listed = (token: string) => async (gateway: string) => {
      const res = await apiRequest(gateway, 'GET', '/api/apps', { token });
      expect(res.status).toBe(200);
      return (res.json().apps as { id: string; name: string }[]).map((app) => app.name).sort();
    };
    const onBothLists = async (token: string) => ({ B: await listed(token)(B), A: await listed(token)(A) });

    it('created and deleted through A: every list through B and A shows it at once, though both had just listed the old one', async () => {
      const { session, app } = await learnerWithApp();
      expect(await onBothLists(session)).toEqual(same(['test app']));
      const created = await apiRequest(A, 'POST', '/api/apps', { token: session, body: { name: 'second app' } });
      expect(created.status).toBe(201);
      expect(await onBothLists(session)).toEqual(same(['second app', 'test app']));
      await change('DELETE', `/api/apps/${app.id}`, session);
      expect(await onBothLists(session)).toEqual(same(['second app']));
    });
  });

  describe('classes and exercises (issue #37: nothing about them is kept in any process)', () => {
    const inClass = (token: string) => async (gateway: string) =>
      ((await apiRequest(gateway, 'GET', '/api/classes', { token })).json().classes as { name: string }[]).map((c) => c.name);
    const learnersOf = (classId: string) => async (gateway: string) =>
      ((await apiRequest(gateway, 'GET', `/api/admin/classes/${classId}`, { token: operator })).json().learners as { email: string }[]).map((l) => l.email);
    const onBothGateways = async <T>(read: (gateway: string) => Promise<T>) => ({ B: await read(B), A: await read(A) });

    it('a class created through A is joined at once through B; joined, left and deleted through one gateway, the other shows it at once', async () => {
      const created = await apiRequest(A, 'POST', '/api/admin/classes', {
        token: operator,
        body: { name: 'replicas class', startsAt: '2020-01-01T00:00:00Z', endsAt: '2100-01-01T00:00:00Z' },
      });
      expect(created.status).toBe(201);
      const { id, joinCode } = created.json() as { id: string; joinCode: string };
      const session = await registerUser(A);
      const email = (await apiRequest(A, 'GET', '/api/me', { token: session })).json().email as string;
      expect(await onBothGateways(inClass(session))).toEqual(same([]));

      expect((await apiRequest(B, 'POST', '/api/classes/join', { token: session, body: { code: joinCode } })).status).toBe(200);
      expect(await onBothGateways(inClass(session))).toEqual(same(['replicas class']));
      expect(await onBothGateways(learnersOf(id))).toEqual(same([email]));

      expect((await apiRequest(A, 'DELETE', `/api/classes/${id}`, { token: session })).status).toBe(204);
      expect(await onBothGateways(inClass(session))).toEqual(same([]));
      expect(await onBothGateways(learnersOf(id))).toEqual(same([]));

      expect((await apiRequest(A, 'DELETE', `/api/admin/classes/${id}`, { token: operator })).status).toBe(204);
      expect((await apiRequest(B, 'POST', '/api/classes/join', { token: session, body: { code: joinCode } })).status).toBe(404);
    });

    it('an exercise attempted through A and fixed through B is done on both (each gateway records its own requests; either identity judges them)', async () => {
      const { session, app } = await learnerWithApp();
      expect((await withBasic(A, app.appId, 'as_not-the-secret')).status).toBe(401);
      const status = async (gateway: string) =>
        ((await apiRequest(gateway, 'GET', '/api/exercises', { token: session })).json().exercises as { id: string; status: string }[]).find(
          (e) => e.id === 'auth-basic',
        )!.status;
      // Judged off the request path, about a second after the gateway flushes: not a 2xx change, so waited for.
      await eventually(
        () => onBothGateways(status),
        (seen) => seen.A === 'attempted' && seen.B === 'attempted',
        30_000,
        200,
      );
      expect((await withBasic(B, app.appId, app.appSecret)).status).toBe(200);
      await eventually(
        () => onBothGateways(status),
        (seen) => seen.A === 'done' && seen.B === 'done',
        30_000,
        200,
      );
    });
  });

  describe('portal sessions (identity remembers a verified session for 500 ms)', () => {
    const me = (token: string) => (gateway: string) => apiRequest(gateway, 'GET', '/api/me', { token });

    it('signed out through A: the session is refused at once through B and A, though both had just accepted it', async () => {
      const session = await registerUser(A);
      expect(await statusesOnBoth(me(session))).toEqual(same(200));
      const out = await apiRequest(A, 'POST', '/api/auth/logout', { token: session });
      expect(out.status).toBe(200);
      expect(await statusesOnBoth(me(session))).toEqual(same(401));
    });

    it('disabled by an operator through A: the session is refused at once through B and A; enabled again, accepted at once', async () => {
      const session = await registerUser(A);
      const userId = (await apiRequest(B, 'GET', '/api/me', { token: session })).json().id as string;
      expect(await statusesOnBoth(me(session))).toEqual(same(200));
      await change('POST', `/api/admin/users/${userId}/disable`, operator);
      expect(await statusesOnBoth(me(session))).toEqual(same(403));
      await change('POST', `/api/admin/users/${userId}/enable`, operator);
      expect(await statusesOnBoth(me(session))).toEqual(same(200));
    });

    it('deleted by an operator through A: the session is refused at once through B and A', async () => {
      const session = await registerUser(A);
      const userId = (await apiRequest(B, 'GET', '/api/me', { token: session })).json().id as string;
      expect(await statusesOnBoth(me(session))).toEqual(same(200));
      const deleted = await apiRequest(A, 'DELETE', `/api/admin/users/${userId}`, { token: operator });
      expect(deleted.status).toBe(200);
      expect(await statusesOnBoth(me(session))).toEqual(same(401));
    });
  });
});

describe('read your writes in the embedded default (one process per service, no Redis): a change is seen by the very next request', () => {
  let system: RunningSystem;
  let url: string;

  beforeAll(async () => {
    system = await startSystem({}, { timeoutMs: 90_000 });
    url = system.baseUrl;
  }, 120_000);
  afterAll(async () => system?.stop());

  const status = async (res: Promise<RawResponse>) => (await res).status;
  const apiKeyStatus = (apiKey: string) => status(rawRequest(`${url}/playground/auth/api-key`, { headers: { 'x-api-key': apiKey } }));
  const hmacStatus = (appId: string, apiKey: string) => {
    const timestamp = String(nextHmacSecond());
    const signature = createHmac('sha256', apiKey).update(`${timestamp}.GET./playground/auth/hmac`).digest('hex');
    return status(rawRequest(`${url}/playground/auth/hmac`, { headers: { 'x-app-id': appId, 'x-timestamp': timestamp, 'x-signature': signature } }));
  };
  const authorizeStatus = (appId: string) =>
    status(
      rawRequest(
        `${url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: appId, redirect_uri: REDIRECT, code_challenge: s256('v'.repeat(43)), code_challenge_method: 'S256' })}`,
      ),
    );
  const change = async (method: string, path: string, token: string, body?: unknown) =>
    expect((await apiRequest(url, method, path, { token, ...(body === undefined ? {} : { body }) })).status).toBe(200);

  it('a redirect URI registered is used at once; an API key rotated is refused at once in the gateway and in the signed styles, the new one accepted; a scope given reaches the data at once', async () => {
    const session = await registerUser(url);
    const app = await createApp(url, session, { scopes: ['hr:read'] });
    expect(await authorizeStatus(app.appId)).toBe(400);
    await change('PUT', `/api/apps/${app.id}/redirect-uris`, session, { redirectUris: [REDIRECT] });
    expect(await authorizeStatus(app.appId)).toBe(302);

    expect({ apiKey: await apiKeyStatus(app.apiKey), hmac: await hmacStatus(app.appId, app.apiKey) }).toEqual({ apiKey: 200, hmac: 200 });
    const rotated = (await apiRequest(url, 'POST', `/api/apps/${app.id}/rotate`, { token: session, body: { apiKey: true } })).json() as CreatedApp;
    expect({ apiKey: await apiKeyStatus(app.apiKey), hmac: await hmacStatus(app.appId, app.apiKey) }).toEqual({ apiKey: 401, hmac: 401 });
    expect({ apiKey: await apiKeyStatus(rotated.apiKey), hmac: await hmacStatus(app.appId, rotated.apiKey) }).toEqual({ apiKey: 200, hmac: 200 });

    const stocks = () => status(rawRequest(`${url}/playground/data/stocks/tickers?page_size=1`, { headers: { 'x-api-key': rotated.apiKey } }));
    expect(await stocks()).toBe(403);
    await change('PUT', `/api/apps/${app.id}/scopes`, session, { scopes: ['hr:read', 'stocks:read'] });
    expect(await stocks()).toBe(200);
  });

  it('an access token revoked is refused at once, though the gateway had just accepted it', async () => {
    const app = await createApp(url, await registerUser(url));
    const basic = `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
    const post = (path: string, fields: Record<string, string>) =>
      rawRequest(`${url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
        body: new URLSearchParams(fields).toString(),
      });
    const access = (await post('/oauth/token', { grant_type: 'client_credentials' })).json().access_token as string;
    const use = () => status(rawRequest(`${url}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${access}` } }));
    expect(await use()).toBe(200);
    expect((await post('/oauth/revoke', { token: access })).status).toBe(200);
    expect(await use()).toBe(401);
  });
});
