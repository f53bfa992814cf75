import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { apiRequest, eventually, isolatedMongoUrl, requireStoreUrls, startSystem, type RawResponse, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(90_000);

/*
 * App management through the real gateway: every route and status of the
 * spec's App management table plus scopes and logs, isolation between two
 * users, credentials taking effect (and stopping) on the real data endpoint,
 * and secrets absent from responses, the database and every log line.
 */
const ALL_SCOPES = ['fpa:read', 'stocks:read', 'marketing:read', 'hr:read', 'cricket:read'];
const UNKNOWN_ID = '0123456789abcdef01234567';

interface Created {
  id: string;
  appId: string;
  appSecret: string;
  apiKey: string;
  bearerToken: string;
}

describe('app management (through the gateway)', () => {
  let system: RunningSystem;
  let mongoUrl: string;
  let db: mongoose.Connection;
  let alice: string;
  let bob: string;
  /** Every credential value any response handed out, to search for later. */
  const issued: string[] = [];

  const request = (method: string, path: string, options: Parameters<typeof apiRequest>[3] = {}) => apiRequest(system.baseUrl, method, path, options);
  const expectError = (res: RawResponse, status: number, code: string) => {
    expect({ status: res.status, code: res.json().error?.code }).toEqual({ status, code });
    expect(res.json()).toEqual({ error: { code, message: expect.any(String), requestId: res.headers['x-request-id'] } });
  };
  const signUp = async () => {
    const res = await request('POST', '/api/auth/register', {
      body: { email: `u-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery' },
    });
    return res.json().token as string;
  };
  const remember = (body: Record<string, unknown>) => {
    for (const field of ['appSecret', 'apiKey', 'bearerToken']) if (typeof body[field] === 'string') issued.push(body[field] as string);
  };
  const createApp = async (token: string, body: Record<string, unknown> = { name: 'Practice app' }): Promise<Created> => {
    const res = await request('POST', '/api/apps', { token, body });
    expect(res.status).toBe(201);
    remember(res.json());
    return res.json();
  };
  const data = (headers: Record<string, string>, pack = 'hr', entity = 'employees', query = '') =>
    request('GET', `/playground/data/${pack}/${entity}?page_size=1${query}`, { headers });
  const withKey = (apiKey: string) => ({ 'x-api-key': apiKey });
  const withBearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  /** A credential change must reach every gateway within a second (identity and gateway cache at most 500 ms each). */
  /**
   * The change is seen within a second: the gateway's and identity's caches
   * hold a verdict at most 500 ms each, bounds pinned with injected clocks in
   * their unit tests (short-lived-cache, verification). Measured here through HTTP on
   * a busy machine, a round trip alone can take longer, so this only polls.
   */
  const within1s = async (probe: () => Promise<RawResponse>, status: number) => {
    await eventually(
      async () => (await probe()).status,
      (s) => s === status,
      10_000,
      25,
    );
  };

  beforeAll(async () => {
    mongoUrl = isolatedMongoUrl('portal_apps');
    system = await startSystem({
      MONGO_URL: mongoUrl,
      REDIS_URL: requireStoreUrls().redisUrl,
      CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      SESSION_SIGNING_KEY: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'debug',
    });
    db = await mongoose.createConnection(mongoUrl).asPromise();
    alice = await signUp();
    bob = await signUp();
  });

  afterAll(async () => {
    await system?.stop();
    await db?.db?.dropDatabase();
    await db?.close();
  });

  describe('POST /api/apps and GET /api/apps[/{id}]', () => {
    it('when an app is created, then 201 with every credential once; later reads show metadata and never a secret', async () => {
      const res = await request('POST', '/api/apps', { token: alice, body: { name: '  Weather dashboard ', description: 'practice' } });
      expect(res.status).toBe(201);
      const app = res.json();
      remember(app);
      expect(res.headers.location).toBe(`/api/apps/${app.id}`);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(app).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: 'Weather dashboard',
        description: 'practice',
        appId: expect.stringMatching(/^app_[\w-]{22}$/),
        appSecret: expect.stringMatching(/^as_[\w-]{43}$/),
        apiKey: expect.stringMatching(/^ak_[\w-]{43}$/),
        bearerToken: expect.stringMatching(/^bt_[\w-]{43}$/),
        redirectUris: [],
        scopes: ALL_SCOPES,
        status: 'active',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        credentials: {
          appSecret: { createdAt: app.createdAt, hint: app.appSecret.slice(-4) },
          apiKey: { createdAt: app.createdAt, hint: app.apiKey.slice(-4) },
          bearerToken: { createdAt: app.createdAt, hint: app.bearerToken.slice(-4) },
        },
      });

      const { appSecret, apiKey, bearerToken, ...metadata } = app;
      const one = await request('GET', `/api/apps/${app.id}`, { token: alice });
      expect(one.status).toBe(200);
      expect(one.json()).toEqual(metadata);
      const list = await request('GET', '/api/apps', { token: alice });
      expect(list.status).toBe(200);
      expect(list.json().apps).toContainEqual(metadata);
      for (const secret of [appSecret, apiKey, bearerToken]) {
        expect(one.body).not.toContain(secret);
        expect(list.body).not.toContain(secret);
      }
    });

    it('when the new app’s credentials are used, then the data endpoint accepts each of them', async () => {
      const app = await createApp(alice);
      expect((await data(withKey(app.apiKey))).status).toBe(200);
      expect((await request('GET', `/playground/data/hr/employees?page_size=1&api_key=${app.apiKey}`)).status).toBe(200);
      expect((await data(withBearer(app.bearerToken))).status).toBe(200);
    });

    it('when the create body asks for fewer scopes, then the app holds only those and a static key gets 403 elsewhere', async () => {
      const app = await createApp(alice, { name: 'Only stocks', scopes: ['stocks:read'] });
      expect(app).toMatchObject({ scopes: ['stocks:read'] });
      expect((await data(withKey(app.apiKey), 'stocks', 'tickers')).status).toBe(200);
      expectError(await data(withKey(app.apiKey), 'hr', 'employees'), 403, 'missing_scope');
    });

    it.each([
      ['no name', {}, 'invalid_body', /name is required/],
      ['an empty name', { name: '' }, 'name_required', /name is required/],
      ['a blank name', { name: '   ' }, 'name_required', /name/],
      ['a name of 101 characters', { name: 'n'.repeat(101) }, 'name_too_long', /at most 100/],
      ['a numeric name', { name: 7 }, 'invalid_body', /name must be a string/],
      ['a description of 1001 characters', { name: 'a', description: 'd'.repeat(1001) }, 'description_too_long', /at most 1000/],
      ['a non-string description', { name: 'a', description: { x: 1 } }, 'invalid_body', /description must be a string/],
      ['an unknown scope', { name: 'a', scopes: ['fpa:write'] }, 'unknown_scope', /fpa:write/],
      ['scopes that are not an array', { name: 'a', scopes: 'fpa:read' }, 'invalid_body', /scopes must be an array/],
      [
        'eleven redirect URIs',
        { name: 'a', redirectUris: Array.from({ length: 11 }, (_, i) => `https://c.example/${i}`) },
        'too_many_redirect_uris',
        /at most 10/,
      ],
      ['a relative redirect URI', { name: 'a', redirectUris: ['/callback'] }, 'invalid_redirect_uri', /redirectUris\[0\]/],
      ['an unknown field', { name: 'a', redirect_uris: [] }, 'invalid_body', /"redirect_uris"/],
    ])('when the body has %s, then 400 naming the problem and nothing is stored', async (_label, body, code, message) => {
      const before = (await request('GET', '/api/apps', { token: bob })).json().apps.length;
      const res = await request('POST', '/api/apps', { token: bob, body });
      expectError(res, 400, code);
      expect(res.json().error.message).toMatch(message);
      expect((await request('GET', '/api/apps', { token: bob })).json().apps).toHaveLength(before);
    });

    it('when the id is malformed or unknown, then 404 app_not_found on GET and DELETE alike: no id of any form names an app', async () => {
      for (const method of ['GET', 'DELETE']) {
        expectError(await request(method, '/api/apps/not-an-id', { token: alice }), 404, 'app_not_found');
        expectError(await request(method, `/api/apps/${UNKNOWN_ID}`, { token: alice }), 404, 'app_not_found');
      }
    });
  });

  describe('isolation between users', () => {
    it("when Bob names Alice's app on any app route, then 404 exactly as for an unknown id, and her app is untouched", async () => {
      const app = await createApp(alice);
      const calls: [string, string, unknown?][] = [
        ['GET', ''],
        ['DELETE', ''],
        ['DELETE', '?mode=revoke'],
        ['POST', '/secret'],
        ['POST', '/rotate', {}],
        ['PUT', '/redirect-uris', { redirectUris: [] }],
        ['PUT', '/scopes', { scopes: [] }],
        ['GET', '/logs'],
      ];
      for (const [method, suffix, body] of calls) {
        const path = (id: string) => `/api/apps/${id}${suffix}`;
        const theirs = await request(method, path(app.id), { token: bob, body });
        const unknown = await request(method, path(UNKNOWN_ID), { token: bob, body });
        expectError(theirs, 404, 'app_not_found');
        expect({ ...theirs.json().error, requestId: '' }).toEqual({ ...unknown.json().error, requestId: '' });
      }
      expect((await request('GET', '/api/apps', { token: bob })).body).not.toContain(app.id);
      const mine = await request('GET', `/api/apps/${app.id}`, { token: alice });
      expect(mine.json()).toMatchObject({ status: 'active', scopes: ALL_SCOPES });
      expect((await data(withKey(app.apiKey))).status).toBe(200);
    });
  });

  describe('credentials change', () => {
    it('POST /api/apps/{id}/secret: 200 with a new App Secret only; the old one is gone from the app at once', async () => {
      const app = await createApp(alice);
      const res = await request('POST', `/api/apps/${app.id}/secret`, { token: alice });
      expect(res.status).toBe(200);
      remember(res.json());
      expect(res.json().appSecret).toMatch(/^as_/);
      expect(res.json().appSecret).not.toBe(app.appSecret);
      expect(res.json()).not.toHaveProperty('apiKey');
      expect(res.json()).not.toHaveProperty('bearerToken');
      expect(res.json().credentials.appSecret.hint).toBe(res.json().appSecret.slice(-4));
      expect((await data(withKey(app.apiKey))).status).toBe(200);
    });

    it('POST /api/apps/{id}/rotate with no body: every credential is new, and the old ones are refused within a second', async () => {
      const app = await createApp(alice);
      expect((await data(withKey(app.apiKey))).status).toBe(200); // warm every cache
      expect((await data(withBearer(app.bearerToken))).status).toBe(200);
      const res = await request('POST', `/api/apps/${app.id}/rotate`, { token: alice });
      expect(res.status).toBe(200);
      remember(res.json());
      const fresh = res.json();
      expect(fresh).toMatchObject({
        appSecret: expect.stringMatching(/^as_/),
        apiKey: expect.stringMatching(/^ak_/),
        bearerToken: expect.stringMatching(/^bt_/),
      });
      await within1s(() => data(withKey(app.apiKey)), 401);
      await within1s(() => data(withBearer(app.bearerToken)), 401);
      expect((await data(withKey(fresh.apiKey))).status).toBe(200);
      expect((await data(withBearer(fresh.bearerToken))).status).toBe(200);
    });

    it('POST /api/apps/{id}/rotate with {apiKey: true}: only the API key changes', async () => {
      const app = await createApp(alice);
      const res = await request('POST', `/api/apps/${app.id}/rotate`, { token: alice, body: { apiKey: true } });
      expect(res.status).toBe(200);
      remember(res.json());
      expect(Object.keys(res.json()).filter((k) => ['appSecret', 'apiKey', 'bearerToken'].includes(k))).toEqual(['apiKey']);
      await within1s(() => data(withKey(app.apiKey)), 401);
      expect((await data(withBearer(app.bearerToken))).status).toBe(200);
    });

    it.each([
      [{ secret: false }, 'nothing_to_rotate'],
      [{ apiKey: 'yes' }, 'invalid_body'],
      [{ bearerToken: true }, 'invalid_body'],
      ['[]', 'invalid_body'],
    ])('POST /api/apps/{id}/rotate with %j: 400 and nothing changes', async (body, code) => {
      const app = await createApp(alice);
      expectError(await request('POST', `/api/apps/${app.id}/rotate`, { token: alice, body }), 400, code);
      expect((await data(withKey(app.apiKey))).status).toBe(200);
    });

    it('PUT /api/apps/{id}/redirect-uris: replaces the list; more than 10, a fragment or a missing list is 400', async () => {
      const app = await createApp(alice, { name: 'OAuth client', redirectUris: ['https://old.example/cb'] });
      const uris = ['https://client.example/callback', 'http://localhost:3000/cb'];
      const res = await request('PUT', `/api/apps/${app.id}/redirect-uris`, { token: alice, body: { redirectUris: uris } });
      expect(res.status).toBe(200);
      expect(res.json().redirectUris).toEqual(uris);
      expectError(
        await request('PUT', `/api/apps/${app.id}/redirect-uris`, { token: alice, body: { redirectUris: Array(11).fill('https://x.example/cb') } }),
        400,
        'too_many_redirect_uris',
      );
      expectError(
        await request('PUT', `/api/apps/${app.id}/redirect-uris`, { token: alice, body: { redirectUris: ['https://x.example/cb#top'] } }),
        400,
        'invalid_redirect_uri',
      );
      expectError(await request('PUT', `/api/apps/${app.id}/redirect-uris`, { token: alice, body: {} }), 400, 'invalid_body');
      expect((await request('GET', `/api/apps/${app.id}`, { token: alice })).json().redirectUris).toEqual(uris);
    });

    it('PUT /api/apps/{id}/scopes: replaces the scopes; the data endpoint follows within a second', async () => {
      const app = await createApp(alice);
      expect((await data(withKey(app.apiKey), 'fpa', 'departments')).status).toBe(200);
      const res = await request('PUT', `/api/apps/${app.id}/scopes`, { token: alice, body: { scopes: ['cricket:read'] } });
      expect(res.status).toBe(200);
      expect(res.json().scopes).toEqual(['cricket:read']);
      await within1s(() => data(withKey(app.apiKey), 'fpa', 'departments'), 403);
      expect((await data(withKey(app.apiKey), 'cricket', 'teams')).status).toBe(200);
      expectError(await request('PUT', `/api/apps/${app.id}/scopes`, { token: alice, body: { scopes: ['admin'] } }), 400, 'unknown_scope');
    });
  });

  describe('DELETE /api/apps/{id}', () => {
    it('with mode=revoke: 200 with the app revoked; every credential is refused within a second; it can still be read and then deleted', async () => {
      const app = await createApp(alice);
      expect((await data(withKey(app.apiKey))).status).toBe(200);
      const res = await request('DELETE', `/api/apps/${app.id}?mode=revoke`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ id: app.id, status: 'revoked' });
      await within1s(() => data(withKey(app.apiKey)), 401);
      expect((await data(withBearer(app.bearerToken))).status).toBe(401);
      expect((await data(withKey(app.apiKey))).json().error.message).toMatch(/revoked/);
      expect((await request('GET', `/api/apps/${app.id}`, { token: alice })).json().status).toBe('revoked');
      expectError(await request('POST', `/api/apps/${app.id}/rotate`, { token: alice }), 400, 'app_revoked');
      expect((await request('DELETE', `/api/apps/${app.id}?mode=revoke`, { token: alice })).status).toBe(200);
      expect((await request('DELETE', `/api/apps/${app.id}`, { token: alice })).status).toBe(200);
    });

    it('without mode: 200; the app, its credentials and its logs are gone; the id answers 404', async () => {
      const app = await createApp(alice);
      expect((await data(withKey(app.apiKey))).status).toBe(200);
      await eventually(
        async () => db.collection('request_logs').countDocuments({ app: app.id }),
        (n) => n > 0,
        5000,
      );
      const res = await request('DELETE', `/api/apps/${app.id}`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ id: app.id, status: 'deleted' });
      await within1s(() => data(withKey(app.apiKey)), 401);
      expectError(await request('GET', `/api/apps/${app.id}`, { token: alice }), 404, 'app_not_found');
      expectError(await request('DELETE', `/api/apps/${app.id}`, { token: alice }), 404, 'app_not_found');
      expect(await db.collection('apps').countDocuments({ _id: app.id as never })).toBe(0);
      expect(await db.collection('request_logs').countDocuments({ app: app.id })).toBe(0);
    });

    it('with an unknown mode: 400 and nothing happens', async () => {
      const app = await createApp(alice);
      expectError(await request('DELETE', `/api/apps/${app.id}?mode=purge`, { token: alice }), 400, 'invalid_parameter');
      expect((await request('GET', `/api/apps/${app.id}`, { token: alice })).status).toBe(200);
    });
  });

  describe('GET /api/apps/{id}/logs', () => {
    it('records each request made with the app’s credentials, newest first, paged, without credentials or query strings', async () => {
      const app = await createApp(bob);
      expect((await data(withKey(app.apiKey))).status).toBe(200);
      expect((await request('GET', `/playground/data/hr/employees?page_size=1&api_key=${app.apiKey}`)).status).toBe(200);
      expect((await data(withBearer(app.bearerToken), 'nope', 'nothing')).status).toBe(404);
      const { value: page } = await eventually(
        async () => (await request('GET', `/api/apps/${app.id}/logs?page_size=2`, { token: bob })).json(),
        (body) => body.total === 3,
        5000,
      );
      expect(page.entries).toHaveLength(2);
      expect(page.nextPageToken).toEqual(expect.any(String));
      expect(page.entries[0]).toEqual({
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        method: 'GET',
        path: '/playground/data/nope/nothing',
        status: 404,
        authStyle: 'bearer',
        latencyMs: expect.any(Number),
        requestId: expect.any(String),
        // A refusal names the rule that failed; an answer below 400 has no failure.
        failure: expect.stringMatching(/^unknown_pack: /),
      });
      expect(page.entries[1]).toMatchObject({ path: '/playground/data/hr/employees', authStyle: 'api_key_query', status: 200 });
      expect(page.entries[1]).not.toHaveProperty('failure');
      const rest = (await request('GET', `/api/apps/${app.id}/logs?page_size=2&pageToken=${page.nextPageToken}`, { token: bob })).json();
      expect(rest.entries.map((e: { authStyle: string }) => e.authStyle)).toEqual(['api_key_header']);
      expect(rest).not.toHaveProperty('nextPageToken');
      const everything = JSON.stringify([page, rest]);
      expect(everything).not.toContain(app.apiKey);
      expect(everything).not.toContain(app.bearerToken);
    });

    it('bad paging input is 400', async () => {
      const app = await createApp(bob);
      expectError(await request('GET', `/api/apps/${app.id}/logs?page_size=0`, { token: bob }), 400, 'invalid_parameter');
      expectError(await request('GET', `/api/apps/${app.id}/logs?page_size=ten`, { token: bob }), 400, 'invalid_parameter');
      expectError(await request('GET', `/api/apps/${app.id}/logs?pageToken=forged`, { token: bob }), 400, 'invalid_page_token');
    });
  });

  describe('POST /api/me/reset', () => {
    it("deletes every app of the caller and no one else's; their credentials stop working", async () => {
      const carol = await signUp();
      const first = await createApp(carol);
      await createApp(carol);
      const alicesApp = await createApp(alice);
      const res = await request('POST', '/api/me/reset', { token: carol });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ deleted: 2 });
      expect((await request('GET', '/api/apps', { token: carol })).json()).toEqual({ apps: [] });
      await within1s(() => data(withKey(first.apiKey)), 401);
      expect((await request('GET', `/api/apps/${alicesApp.id}`, { token: alice })).status).toBe(200);
      expect((await request('POST', '/api/me/reset', { token: carol })).json()).toEqual({ deleted: 0 });
    });
  });

  describe('secrets at rest and in logs', () => {
    it('no credential handed out appears in plain form in any collection', async () => {
      expect(issued.length).toBeGreaterThan(20);
      const dump: unknown[] = [];
      for (const { name } of await db.db!.listCollections().toArray()) dump.push(...(await db.collection(name).find({}).toArray()));
      const text = JSON.stringify(dump);
      expect(text).toContain('"appId":"app_'); // the dump holds the apps
      for (const value of issued) {
        expect(text).not.toContain(value);
        expect(text).not.toContain(value.slice(3, 24));
      }
    });

    it('no credential handed out appears in any process output (debug level)', async () => {
      await eventually(
        async () => system.output(),
        (out) => out.includes('"path":"/api/apps"'),
        10_000,
      );
      const output = system.output();
      for (const value of issued) expect(output).not.toContain(value.slice(3));
    });
  });
});
