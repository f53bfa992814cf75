import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { health, identity } from '@sandbox/contracts';
import { GrpcStatus, promiseClient, type PromiseClient, type RunningGrpcService } from '@sandbox/runtime';
import { clientAsAllowedCallers, isolatedMongoUrl, refusalOf, requireStoreUrls, testTransport, tlsAs, tlsEnv } from '@sandbox/testing';
import { start } from '../../src/composition';
import { loadIdentityConfig } from '../../src/config';

type Client = PromiseClient<identity.IdentityServiceClient>;
const KEY = randomBytes(32).toString('base64url');
const SESSION_KEY = randomBytes(32).toString('hex');
const ACTIVE = identity.AppStatus.APP_STATUS_ACTIVE;
const REVOKED = identity.AppStatus.APP_STATUS_REVOKED;
const PASSWORD = 'correct horse battery';
// A fresh client address per use (an IPv6 /64 of its own): Redis is shared, and its counts outlive a run by up to an hour.
const anAddress = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;

describe('identity gRPC service (in process, real MongoDB-wire store)', () => {
  const mongoUrl = isolatedMongoUrl('identity_grpc');
  const env = {
    MONGO_URL: mongoUrl,
    REDIS_URL: requireStoreUrls().redisUrl,
    CREDENTIAL_ENCRYPTION_KEY: KEY,
    SESSION_SIGNING_KEY: SESSION_KEY,
    IDENTITY_GRPC_PORT: '0',
    LOG_LEVEL: 'silent',
  };
  const services: RunningGrpcService[] = [];
  const clients: Client[] = [];
  let a: Client; // replica A
  let b: Client; // replica B, same database
  let raw: mongoose.Connection;

  const boot = async (extra: Record<string, string> = {}) => {
    const service = await start(loadIdentityConfig({ ...env, ...(await tlsEnv('identity')), ...extra }));
    services.push(service);
    return { service, client: await connect(service) };
  };
  const connect = async (service: RunningGrpcService, deadlineMs = 5000) => {
    const client = await clientAsAllowedCallers(
      identity.IdentityServiceClient,
      identity.IdentityServiceService,
      `127.0.0.1:${service.port}`,
      'identity',
      deadlineMs,
      { transport: testTransport() },
    );
    clients.push(client);
    return client;
  };
  const signUp = async (client: Client) => {
    const email = `u${randomBytes(4).toString('hex')}@example.com`;
    const { user, session } = await client.register({ email, password: PASSWORD });
    return { email, user: user!, token: session!.token };
  };
  const newApp = (client: Client, ownerId: string, extra: Partial<identity.CreateAppRequest> = {}) =>
    client.createApp({ ownerId, name: 'Practice app', description: '', redirectUris: [], ...extra });

  beforeAll(async () => {
    a = (await boot()).client;
    b = (await boot()).client;
    raw = await mongoose.createConnection(mongoUrl).asPromise();
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    for (const service of services) await service.stop();
    await raw.db?.dropDatabase();
    await raw.close();
  });

  it('reports SERVING for "", its service name, "mongodb" and "redis" once connected', async () => {
    const healthClient = promiseClient(health.HealthClient, health.HealthService, `127.0.0.1:${services[0].port}`, 'identity', 2000, await tlsAs('gateway'));
    for (const service of ['', 'sandbox.identity.v1.IdentityService', 'mongodb', 'redis']) {
      await expect(healthClient.check({ service })).resolves.toEqual({ status: health.HealthCheckResponse_ServingStatus.SERVING });
    }
    healthClient.close();
  });

  describe('portal accounts', () => {
    it('when registering, signing in, checking and signing out, then each step answers as documented', async () => {
      const { email, user, token } = await signUp(a);
      expect(user).toMatchObject({ email, provider: 'password' });
      await expect(b.verifySession({ token })).resolves.toEqual({ user, operator: false });
      const login = await b.login({ email: email.toUpperCase(), password: PASSWORD, clientAddress: anAddress() });
      expect(login.user).toEqual(user);
      expect(Date.parse(login.session!.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
      await a.logout({ token });
      expect(await refusalOf(b.verifySession({ token }))).toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code: 'session_ended' });
      await expect(a.verifySession({ token: login.session!.token })).resolves.toEqual({ user, operator: false });
    });

    it('when the password is wrong or the email unknown, then the same UNAUTHENTICATED answer', async () => {
      const { email } = await signUp(a);
      const wrong = await refusalOf(a.login({ email, password: 'not the password', clientAddress: anAddress() }));
      const unknown = await refusalOf(a.login({ email: 'nobody-here@example.com', password: 'not the password', clientAddress: anAddress() }));
      expect(wrong).toEqual({ status: GrpcStatus.UNAUTHENTICATED, code: 'invalid_credentials', message: 'The email or password is not correct.' });
      expect(unknown).toEqual(wrong);
    });

    it('when a session token is forged or mangled, then UNAUTHENTICATED', async () => {
      const { token } = await signUp(a);
      const [h, p] = token.split('.');
      const forged = `${h}.${p}.${randomBytes(32).toString('base64url')}`;
      expect((await refusalOf(a.verifySession({ token: forged }))).code).toBe('invalid_session');
      expect((await refusalOf(a.verifySession({ token: 'garbage' }))).code).toBe('invalid_session');
    });

    it('when an email registers twice, then ALREADY_EXISTS and only one account', async () => {
      const { email } = await signUp(a);
      expect(await refusalOf(b.register({ email, password: 'another password' }))).toMatchObject({ status: GrpcStatus.ALREADY_EXISTS, code: 'email_taken' });
      expect(await raw.collection('users').countDocuments({ email })).toBe(1);
    });
  });

  describe('account identity', () => {
    it('when an email is spelled composed on one replica and decomposed on the other, then it is one account', async () => {
      const local = `jos\u00e9${randomBytes(4).toString('hex')}`;
      const { user } = await a.register({ email: `${local}@example.com`, password: PASSWORD });
      expect(user!.email).toBe(`${local}@example.com`);
      const decomposed = `${local.normalize('NFD').toUpperCase()}@Example.COM`;
      expect(await refusalOf(b.register({ email: decomposed, password: PASSWORD }))).toMatchObject({ code: 'email_taken' });
      expect((await b.login({ email: decomposed, password: PASSWORD, clientAddress: anAddress() })).user!.id).toBe(user!.id);
      expect(await raw.collection('users').countDocuments({ email: user!.email })).toBe(1);
    });

    it('when an email, name or description holds a control or format character, then INVALID_ARGUMENT naming the rule, and nothing is written', async () => {
      const { user } = await signUp(a);
      expect(await refusalOf(a.register({ email: 'ada\u202e@example.com', password: PASSWORD }))).toEqual({
        status: GrpcStatus.INVALID_ARGUMENT,
        code: 'invalid_email',
        message: expect.stringMatching(/^email must not contain invisible format characters .*U\+202E/),
      });
      expect((await refusalOf(a.register({ email: 'ada\u0000@example.com', password: PASSWORD }))).message).toMatch(/control characters/);
      expect((await refusalOf(newApp(a, user.id, { name: 'app\u200d' }))).code).toBe('invalid_name');
      expect((await refusalOf(newApp(a, user.id, { description: 'text\ufffd' }))).code).toBe('invalid_description');
      expect(await raw.collection('apps').countDocuments({ ownerId: user.id })).toBe(0);
    });
  });

  describe('sign-in throttling', () => {
    it("when an attacker's address fails many times on the victim's email, then that address gets 429 on every replica and the victim still signs in from theirs", async () => {
      const victim = await signUp(a);
      const attacker = anAddress();
      for (let i = 0; i < 5; i++) {
        expect(await refusalOf(a.login({ email: victim.email, password: `guess number ${i}`, clientAddress: attacker }))).toMatchObject({
          code: 'invalid_credentials',
        });
      }
      // Counted in Redis: the other replica refuses the address too, even with the right password.
      const refused = await refusalOf(b.login({ email: victim.email, password: PASSWORD, clientAddress: attacker }));
      expect(refused).toMatchObject({ status: GrpcStatus.RESOURCE_EXHAUSTED, code: 'too_many_attempts', message: expect.stringMatching(/try again in \d+ s/) });
      expect(refused.retryAfterSeconds).toBeGreaterThan(0);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(900);

      const signedIn = await b.login({ email: victim.email, password: PASSWORD, clientAddress: anAddress() });
      expect(signedIn.user!.id).toBe(victim.user.id);
      // The victim's success does not reset the attacker's count.
      expect((await refusalOf(a.login({ email: victim.email, password: PASSWORD, clientAddress: attacker }))).code).toBe('too_many_attempts');
      // The attacker's own account is another email: this count does not refuse it.
      const own = await signUp(a);
      await expect(a.login({ email: own.email, password: PASSWORD, clientAddress: attacker })).resolves.toMatchObject({ user: { id: own.user.id } });
    });

    it('when failures come from many addresses, then the account is only slowed down, by a bounded 2 s, and the owner still signs in', async () => {
      const victim = await signUp(a);
      // A long deadline for the attack itself: its attempts wait up to 2 s each, and queue for scrypt.
      const [slowA, slowB] = await Promise.all([connect(services[0], 30_000), connect(services[1], 30_000)]);
      const attempts = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          refusalOf((i % 2 ? slowA : slowB).login({ email: victim.email, password: `guess ${i}`, clientAddress: anAddress() })),
        ),
      );
      expect(attempts.map((r) => r.code)).toEqual(Array(10).fill('invalid_credentials'));
      // Ten failures are past the cap: the owner waits the 2 s maximum, and is let in within the normal 5 s deadline.
      const started = Date.now();
      const signedIn = await b.login({ email: victim.email, password: PASSWORD, clientAddress: anAddress() });
      expect(signedIn.user!.id).toBe(victim.user.id);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1990);
    });
  });

  describe('apps and credentials', () => {
    it('when an app is created, then the credentials come back once and every later read shows only metadata', async () => {
      const { user } = await signUp(a);
      const created = await newApp(a, user.id, { description: 'learning', redirectUris: ['https://localhost:3000/cb'] });
      const issued = created.issued!;
      expect(issued.appSecret).toMatch(/^as_[A-Za-z0-9_-]{43}$/);
      expect(issued.apiKey).toMatch(/^ak_[A-Za-z0-9_-]{43}$/);
      expect(issued.bearerToken).toMatch(/^bt_[A-Za-z0-9_-]{43}$/);
      const app = created.app!;
      expect(app).toMatchObject({
        ownerId: user.id,
        name: 'Practice app',
        status: ACTIVE,
        scopes: ['fpa:read', 'stocks:read', 'marketing:read', 'hr:read', 'cricket:read'],
      });
      expect(app.credentials!.apiKey!.hint).toBe(issued.apiKey!.slice(-4));

      const fetched = await b.getApp({ ownerId: user.id, id: app.id });
      const listed = await b.listApps({ ownerId: user.id });
      expect(fetched.app).toEqual(app);
      expect(listed.apps).toEqual([app]);
      const text = JSON.stringify([fetched, listed]);
      for (const secret of Object.values(issued)) expect(text).not.toContain(secret);
    });

    it('when the database is read directly, then no credential or password is there in plain form', async () => {
      const { user } = await signUp(a);
      const { app, issued } = await newApp(a, user.id);
      const rotated = await a.rotateCredentials({ ownerId: user.id, id: app!.id });
      const secrets = [...Object.values(issued!), ...Object.values(rotated.issued!), PASSWORD].map(String);
      const dump: unknown[] = [];
      for (const { name } of await raw.db!.listCollections().toArray()) dump.push(...(await raw.collection(name).find({}).toArray()));
      const text = JSON.stringify(dump);
      expect(text).toContain(app!.appId); // the dump is real
      for (const secret of secrets) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice(3, 20)); // nor the random part without its prefix
      }
      const stored = await raw.collection('apps').findOne({ _id: app!.id as never });
      expect(stored?.credentials.apiKey.sealed).toMatch(/^v1\./);
    });

    it('when the create body names fewer scopes, then the app holds only those, and scopes can be changed later', async () => {
      const { user } = await signUp(a);
      const { app } = await newApp(a, user.id, { scopes: { scopes: ['stocks:read'] } });
      expect(app!.scopes).toEqual(['stocks:read']);
      const { issued } = await a.rotateCredentials({ ownerId: user.id, id: app!.id, apiKey: true });
      expect((await b.verifyApiKey({ apiKey: issued!.apiKey! })).check!.principal!.scopes).toEqual(['stocks:read']);
      const { app: widened } = await a.setScopes({ ownerId: user.id, id: app!.id, scopes: ['hr:read', 'stocks:read'] });
      expect(widened!.scopes).toEqual(['stocks:read', 'hr:read']);
      expect((await a.verifyApiKey({ apiKey: issued!.apiKey! })).check!.principal!.scopes).toEqual(['stocks:read', 'hr:read']);
      expect((await refusalOf(a.setScopes({ ownerId: user.id, id: app!.id, scopes: ['stocks:write'] }))).code).toBe('unknown_scope');
    });

    it('when input is bad, then INVALID_ARGUMENT naming the problem and nothing is written', async () => {
      const { user } = await signUp(a);
      const before = await raw.collection('apps').countDocuments({ ownerId: user.id });
      for (const [request, code] of [
        [{ name: '' }, 'name_required'],
        [{ name: 'x'.repeat(101) }, 'name_too_long'],
        [{ description: 'd'.repeat(1001) }, 'description_too_long'],
        [{ redirectUris: ['https://a.example/cb#frag'] }, 'invalid_redirect_uri'],
        [{ redirectUris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) }, 'too_many_redirect_uris'],
        [{ scopes: { scopes: ['root'] } }, 'unknown_scope'],
      ] as const) {
        expect(await refusalOf(newApp(a, user.id, request as Partial<identity.CreateAppRequest>))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code });
      }
      expect(await raw.collection('apps').countDocuments({ ownerId: user.id })).toBe(before);
      expect((await refusalOf(a.listApps({ ownerId: '' }))).code).toBe('owner_required');
    });

    it("when another user's app, an unknown id or an id of the wrong form is named, then NOT_FOUND on every operation, with one message", async () => {
      const owner = await signUp(a);
      const other = await signUp(a);
      const { app } = await newApp(a, owner.user.id);
      const ids = [app!.id, randomBytes(12).toString('hex'), 'not-an-id', app!.id.toUpperCase(), '{"$ne":null}', ''];
      for (const id of ids) {
        const ownerId = other.user.id;
        for (const call of [
          () => b.getApp({ ownerId, id }),
          () => b.deleteApp({ ownerId, id, revoke: false }),
          () => b.deleteApp({ ownerId, id, revoke: true }),
          () => b.regenerateSecret({ ownerId, id }),
          () => b.rotateCredentials({ ownerId, id }),
          () => b.setRedirectUris({ ownerId, id, redirectUris: [] }),
          () => b.setScopes({ ownerId, id, scopes: [] }),
          () => b.listRequestLogs({ ownerId, id, pageSize: 10, pageToken: '' }),
        ]) {
          expect(await refusalOf(call())).toEqual({ status: GrpcStatus.NOT_FOUND, code: 'app_not_found', message: 'No app with this id was found.' });
        }
      }
      await expect(b.listApps({ ownerId: other.user.id })).resolves.toEqual({ apps: [] });
      await expect(b.resetOwner({ ownerId: other.user.id })).resolves.toEqual({ deleted: 0 });
      await expect(a.getApp({ ownerId: owner.user.id, id: app!.id })).resolves.toMatchObject({ app: { status: ACTIVE } });
    });

    it('when credentials are verified, then each style answers the app, its owner and scopes; refusals are answers', async () => {
      const { user } = await signUp(a);
      const { app, issued } = await newApp(a, user.id);
      const principal = { id: app!.id, appId: app!.appId, ownerId: user.id, scopes: app!.scopes };
      await expect(b.verifyApiKey({ apiKey: issued!.apiKey! })).resolves.toEqual({ check: { ok: true, reason: '', principal } });
      await expect(b.verifyBearerToken({ bearerToken: issued!.bearerToken! })).resolves.toEqual({ check: { ok: true, reason: '', principal } });
      await expect(b.verifyBasic({ appId: app!.appId, appSecret: issued!.appSecret! })).resolves.toEqual({ check: { ok: true, reason: '', principal } });
      const refused = await b.verifyBasic({ appId: app!.appId, appSecret: `as_${randomBytes(32).toString('base64url')}` });
      expect(refused.check).toEqual({ ok: false, reason: 'The App ID or App Secret is not valid.', principal: undefined });
      await expect(b.lookupApp({ appId: app!.appId })).resolves.toEqual({ found: true, active: true, principal, redirectUris: [] });
      await expect(b.getSigningKey({ appId: app!.appId })).resolves.toEqual({ found: true, active: true, principal, apiKey: issued!.apiKey });
    });

    it('when credentials are rotated, then the old ones stop at once on this replica and within a second on the other', async () => {
      const { user } = await signUp(a);
      const { app, issued } = await newApp(a, user.id);
      // Warm both replicas' caches with the old values.
      for (const client of [a, b]) {
        expect((await client.verifyApiKey({ apiKey: issued!.apiKey! })).check!.ok).toBe(true);
        expect((await client.verifyBasic({ appId: app!.appId, appSecret: issued!.appSecret! })).check!.ok).toBe(true);
      }
      const rotatedAt = Date.now();
      const { issued: fresh } = await a.rotateCredentials({ ownerId: user.id, id: app!.id });
      expect(Object.keys(fresh!).sort()).toEqual(['apiKey', 'appSecret', 'bearerToken']);
      expect((await a.verifyApiKey({ apiKey: issued!.apiKey! })).check!.ok).toBe(false);
      expect((await a.verifyBearerToken({ bearerToken: issued!.bearerToken! })).check!.ok).toBe(false);
      expect((await a.verifyBasic({ appId: app!.appId, appSecret: issued!.appSecret! })).check!.ok).toBe(false);
      // Each cached answer on the other replica lapses on its own, at most 500 ms after it was cached.
      await refusedBy(rotatedAt + 1000, async () => (await b.verifyApiKey({ apiKey: issued!.apiKey! })).check!.ok);
      await refusedBy(rotatedAt + 1000, async () => (await b.verifyBasic({ appId: app!.appId, appSecret: issued!.appSecret! })).check!.ok);
      expect((await b.verifyApiKey({ apiKey: fresh!.apiKey! })).check!.ok).toBe(true);
      expect((await b.getSigningKey({ appId: app!.appId })).apiKey).toBe(fresh!.apiKey);
    });

    it('when only the secret is regenerated, then only the App Secret changes', async () => {
      const { user } = await signUp(a);
      const { app, issued } = await newApp(a, user.id);
      const { issued: fresh } = await a.regenerateSecret({ ownerId: user.id, id: app!.id });
      expect(fresh).toEqual({ appSecret: expect.stringMatching(/^as_/) });
      expect((await a.verifyBasic({ appId: app!.appId, appSecret: issued!.appSecret! })).check!.ok).toBe(false);
      expect((await a.verifyBasic({ appId: app!.appId, appSecret: fresh!.appSecret! })).check!.ok).toBe(true);
      expect((await a.verifyApiKey({ apiKey: issued!.apiKey! })).check!.ok).toBe(true);
    });

    it('when an app is revoked, then every credential is refused and the oauth service sees it inactive', async () => {
      const { user } = await signUp(a);
      const { app, issued } = await newApp(a, user.id);
      expect((await b.verifyBearerToken({ bearerToken: issued!.bearerToken! })).check!.ok).toBe(true);
      const revoked = await a.deleteApp({ ownerId: user.id, id: app!.id, revoke: true });
      expect(revoked).toMatchObject({ id: app!.id, outcome: 'revoked', app: { status: REVOKED } });
      for (const client of [a, b]) {
        await expectEventually(async () => (await client.verifyBearerToken({ bearerToken: issued!.bearerToken! })).check!.reason, /revoked/);
        expect((await client.verifyApiKey({ apiKey: issued!.apiKey! })).check!.ok).toBe(false);
        expect((await client.verifyBasic({ appId: app!.appId, appSecret: issued!.appSecret! })).check!.ok).toBe(false);
        expect(await client.lookupApp({ appId: app!.appId })).toMatchObject({ found: true, active: false });
        expect(await client.getSigningKey({ appId: app!.appId })).toMatchObject({ found: true, active: false, apiKey: '' });
      }
      expect((await refusalOf(a.rotateCredentials({ ownerId: user.id, id: app!.id }))).code).toBe('app_revoked');
      await expect(a.getApp({ ownerId: user.id, id: app!.id })).resolves.toMatchObject({ app: { status: REVOKED } });
    });

    it('when an app is deleted, then its credentials, logs and id are gone', async () => {
      const { user } = await signUp(a);
      const { app, issued } = await newApp(a, user.id);
      await a.recordRequests({ entries: [logEntry(app!.id, 'r-1')], usage: [] });
      expect(await raw.collection('request_logs').countDocuments({ app: app!.id })).toBe(1);
      await expect(a.deleteApp({ ownerId: user.id, id: app!.id, revoke: false })).resolves.toEqual({ id: app!.id, outcome: 'deleted', app: undefined });
      expect((await a.verifyApiKey({ apiKey: issued!.apiKey! })).check!.ok).toBe(false);
      await expectEventually(async () => String((await b.lookupApp({ appId: app!.appId })).found), /false/);
      expect((await refusalOf(a.getApp({ ownerId: user.id, id: app!.id }))).code).toBe('app_not_found');
      expect((await refusalOf(a.deleteApp({ ownerId: user.id, id: app!.id, revoke: false }))).code).toBe('app_not_found');
      expect(await raw.collection('apps').countDocuments({ _id: app!.id as never })).toBe(0);
      expect(await raw.collection('request_logs').countDocuments({ app: app!.id })).toBe(0);
    });

    it('when redirect URIs break the allow-list, then each is refused naming the URI and the rule, and nothing is written', async () => {
      const { user } = await signUp(a);
      const { app } = await newApp(a, user.id, { redirectUris: ['https://client.example/cb'] });
      for (const [uri, rule] of [
        ['javascript:alert(1)', /javascript: scheme/],
        ['data:text/html,x', /data: scheme/],
        ['https:evil.com', /"\/\/" after the scheme/],
        ['https://evil.com\\@good.com/', /backslash/],
        ['https://user@client.example/cb', /user information/],
        ['https://client.example/cb#frag', /fragment/],
        ['http://client.example/cb', /loopback/],
        ['myapp:/cb', /not allowed/],
        [`https://client.example/${'x'.repeat(2000)}`, /longer than 2000/],
      ] as const) {
        const refused = await refusalOf(a.setRedirectUris({ ownerId: user.id, id: app!.id, redirectUris: ['https://ok.example/cb', uri] }));
        expect(refused).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_redirect_uri' });
        expect(refused.message).toMatch(/^redirectUris\[1\] ".*" is refused: /);
        expect(refused.message).toMatch(rule);
      }
      expect((await refusalOf(newApp(a, user.id, { redirectUris: ['ws://client.example/cb'] }))).code).toBe('invalid_redirect_uri');
      expect((await a.lookupApp({ appId: app!.appId })).redirectUris).toEqual(['https://client.example/cb']);
    });

    it('when redirect URIs are replaced, then the new list is stored exactly as given and the oauth service sees it', async () => {
      const { user } = await signUp(a);
      const { app } = await newApp(a, user.id);
      const uris = [
        'https://client.example/cb',
        'http://127.0.0.1:8080/callback',
        'http://[::1]:3000/cb',
        'com.example.app:/oauth2redirect',
        'HTTPS://Client.Example/CB',
      ];
      await expect(a.setRedirectUris({ ownerId: user.id, id: app!.id, redirectUris: uris })).resolves.toMatchObject({ app: { redirectUris: uris } });
      expect((await a.lookupApp({ appId: app!.appId })).redirectUris).toEqual(uris);
    });

    it('when an owner resets, then all of their apps go and nobody else’s', async () => {
      const owner = await signUp(a);
      const other = await signUp(a);
      await newApp(a, owner.user.id);
      const { issued } = await newApp(a, owner.user.id);
      const { app: kept } = await newApp(a, other.user.id);
      await expect(a.resetOwner({ ownerId: owner.user.id })).resolves.toEqual({ deleted: 2 });
      await expect(a.listApps({ ownerId: owner.user.id })).resolves.toEqual({ apps: [] });
      expect((await a.verifyApiKey({ apiKey: issued!.apiKey! })).check!.ok).toBe(false);
      expect((await a.listApps({ ownerId: other.user.id })).apps.map((x) => x.id)).toEqual([kept!.id]);
    });
  });

  describe('request logs', () => {
    it('when requests are recorded, then the owner reads them newest first in pages, without query strings', async () => {
      const { user } = await signUp(a);
      const { app } = await newApp(a, user.id);
      const base = Date.now() - 10_000;
      await b.recordRequests({
        usage: [],
        entries: [0, 1, 2]
          .map((i) => ({ ...logEntry(app!.id, `r-${i}`), time: new Date(base + i * 1000).toISOString() }))
          .concat([{ ...logEntry(app!.id, 'r-q'), time: new Date(base + 5000).toISOString(), path: '/playground/auth/api-key-query?api_key=ak_leak' }]),
      });
      const first = await a.listRequestLogs({ ownerId: user.id, id: app!.id, pageSize: 2, pageToken: '' });
      expect(first.total).toBe(4);
      expect(first.entries.map((e) => e.requestId)).toEqual(['r-q', 'r-2']);
      expect(first.entries[0].path).toBe('/playground/auth/api-key-query');
      const second = await a.listRequestLogs({ ownerId: user.id, id: app!.id, pageSize: 2, pageToken: first.nextPageToken });
      expect(second.entries.map((e) => e.requestId)).toEqual(['r-1', 'r-0']);
      expect(second.nextPageToken).toBe('');
      expect(JSON.stringify(await raw.collection('request_logs').find({}).toArray())).not.toContain('ak_leak');
      expect((await refusalOf(a.listRequestLogs({ ownerId: user.id, id: app!.id, pageSize: 2, pageToken: 'forged' }))).code).toBe('invalid_page_token');
    });

    it('when a page token is made up, altered or meant for another app, then INVALID_ARGUMENT; a genuine one works on every replica with the same key', async () => {
      const { user } = await signUp(a);
      const { app } = await newApp(a, user.id);
      const { app: other } = await newApp(a, user.id);
      const base = Date.now() - 10_000;
      await a.recordRequests({
        usage: [],
        entries: [0, 1, 2].flatMap((i) => [app!.id, other!.id].map((id) => ({ ...logEntry(id, `t-${i}`), time: new Date(base + i * 1000).toISOString() }))),
      });
      const { nextPageToken } = await a.listRequestLogs({ ownerId: user.id, id: app!.id, pageSize: 1, pageToken: '' });
      expect(nextPageToken).toMatch(/^[A-Za-z0-9_-]{68}$/);
      const unsigned = Buffer.from(JSON.stringify({ t: base + 5000, i: 'f'.repeat(24) })).toString('base64url');
      const altered = `${nextPageToken.slice(0, 10)}${nextPageToken[10] === 'A' ? 'B' : 'A'}${nextPageToken.slice(11)}`;
      for (const [id, pageToken] of [
        [app!.id, unsigned],
        [app!.id, altered],
        [other!.id, nextPageToken],
      ]) {
        expect(await refusalOf(b.listRequestLogs({ ownerId: user.id, id, pageSize: 1, pageToken }))).toMatchObject({
          status: GrpcStatus.INVALID_ARGUMENT,
          code: 'invalid_page_token',
        });
      }
      const next = await b.listRequestLogs({ ownerId: user.id, id: app!.id, pageSize: 1, pageToken: nextPageToken });
      expect(next.entries.map((e) => e.requestId)).toEqual(['t-1']);
      // A replica with another SESSION_SIGNING_KEY derives another page-token key.
      const { client: stranger } = await boot({ SESSION_SIGNING_KEY: randomBytes(32).toString('hex') });
      expect((await refusalOf(stranger.listRequestLogs({ ownerId: user.id, id: app!.id, pageSize: 1, pageToken: nextPageToken }))).code).toBe(
        'invalid_page_token',
      );
    });

    it('when more requests arrive than the per-app cap, then only the newest cap are kept', async () => {
      const { client } = await boot({ REQUEST_LOG_CAP_PER_APP: '3' });
      const { user } = await signUp(client);
      const { app } = await newApp(client, user.id);
      const base = Date.now() - 10_000;
      await client.recordRequests({
        entries: [0, 1, 2, 3, 4].map((i) => ({ ...logEntry(app!.id, `c-${i}`), time: new Date(base + i).toISOString() })),
        usage: [],
      });
      const page = await client.listRequestLogs({ ownerId: user.id, id: app!.id, pageSize: 10, pageToken: '' });
      expect(page.entries.map((e) => e.requestId)).toEqual(['c-4', 'c-3', 'c-2']);
      expect(await raw.collection('request_logs').countDocuments({ app: app!.id })).toBe(3);
    });
  });
});

function logEntry(app: string, requestId: string): identity.RequestLogEntry {
  return {
    app,
    time: new Date().toISOString(),
    method: 'GET',
    path: '/playground/data/hr/employees',
    status: 200,
    authStyle: 'api_key',
    latencyMs: 2.5,
    requestId,
    appId: '',
    failure: '',
    facts: {},
  };
}

/** Polls until `accepted` answers false, failing if that has not happened by `deadline` (ms since epoch). */
async function refusedBy(deadline: number, accepted: () => Promise<boolean>): Promise<void> {
  while (await accepted()) {
    if (Date.now() > deadline) throw new Error('still accepted after the deadline');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function expectEventually(probe: () => Promise<string>, pattern: RegExp, timeoutMs = 1000): Promise<void> {
  const started = Date.now();
  let last = await probe();
  while (!pattern.test(last)) {
    if (Date.now() - started > timeoutMs) throw new Error(`still ${JSON.stringify(last)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
    last = await probe();
  }
}
