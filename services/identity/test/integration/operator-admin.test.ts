import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { identity } from '@sandbox/contracts';
import { GrpcStatus, promiseClient, type PromiseClient, type RunningGrpcService } from '@sandbox/runtime';
import { clientAsAllowedCallers, isolatedMongoUrl, refusalOf, requireStoreUrls, testTransport, tlsAs, tlsEnv } from '@sandbox/testing';
import { start } from '../../src/composition';
import { loadIdentityConfig } from '../../src/config';

jest.setTimeout(60_000);

/*
 * The operator's RPCs (issue #22, docs/operators.md) on two real identity
 * replicas sharing a real MongoDB-wire store: who is an operator, disable and
 * enable, delete with everything that goes with it, purge, usage counts and
 * their export, the audit log, and apps' own limits. The gateway's side
 * (routes, 404s, oauth state) has its own tests.
 */
type Client = PromiseClient<identity.IdentityServiceClient>;
const PASSWORD = 'correct horse battery';
const OPERATOR_EMAIL = 'ops@example.org';
const ISSUER = 'https://login.campus.example';
const AUDIENCE = 'training-sandbox';
/** The admin CLI: no session, its certificate (the test clients call admin RPCs as `cli`), and the user it states. */
const CLI: identity.OperatorCredential = { sessionToken: '', statedUser: 'root@admin-pod' };
/** Whom identity audits for it: the certificate's identity, the stated user beside. */
const CLI_ACTOR: identity.Actor = { kind: 'cli', id: 'cli', email: '', statedUser: 'root@admin-pod' };
const anAddress = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;

describe('operator RPCs', () => {
  const mongoUrl = isolatedMongoUrl('identity_admin');
  let idpKey: CryptoKey;
  let jwks: http.Server;
  const services: RunningGrpcService[] = [];
  const clients: Client[] = [];
  let a: Client;
  let b: Client;
  let raw: mongoose.Connection;

  const idpToken = (subject: string, claims: JWTPayload, issuedAt = Math.floor(Date.now() / 1000)) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(subject)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 600)
      .sign(idpKey);
  const signUp = async (email = `u${randomBytes(4).toString('hex')}@example.com`) => {
    const { user, session } = await a.register({ email, password: PASSWORD });
    return { email, user: user!, token: session!.token };
  };
  /** A new operator, by group, signed in through the identity provider: the ID token is the session. */
  const signInOperator = async () => {
    const tag = randomBytes(3).toString('hex');
    const token = await idpToken(`ops-${tag}`, { email: `ops-${tag}@campus.example`, groups: ['sandbox-operators'] });
    const user = (await a.verifySession({ token })).user!;
    return { user, email: user.email, token };
  };
  const newApp = async (ownerId: string) => {
    const { app, issued } = await a.createApp({ ownerId, name: 'Practice app', description: '', redirectUris: [] });
    return { app: app!, issued: issued! };
  };
  const usage = (app: string, requests: number, extra: Partial<identity.UsageCount> = {}): identity.UsageCount => ({
    app,
    appId: '',
    day: new Date().toISOString().slice(0, 10),
    authStyle: 'api_key_header',
    routeFamily: 'data',
    requests,
    lastAt: new Date().toISOString(),
    ...extra,
  });
  const latestAudit = async () => (await a.adminListAudit({ operator: CLI, pageSize: 1, pageToken: '' })).entries[0];

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    idpKey = pair.privateKey;
    const keys = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
    jwks = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(keys));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const env = {
      MONGO_URL: mongoUrl,
      REDIS_URL: requireStoreUrls().redisUrl,
      CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      SESSION_SIGNING_KEY: randomBytes(32).toString('hex'),
      IDENTITY_GRPC_PORT: '0',
      LOG_LEVEL: 'silent',
      EXTERNAL_IDP_ISSUER: ISSUER,
      EXTERNAL_IDP_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
      EXTERNAL_IDP_AUDIENCE: AUDIENCE,
      OPERATOR_EMAILS: ` ${OPERATOR_EMAIL.toUpperCase()} `,
      OPERATOR_GROUPS: 'sandbox-operators',
      SIGNUP: 'domain',
      SIGNUP_DOMAINS: 'example.org,example.com',
    };
    for (let i = 0; i < 2; i++) {
      const service = await start(loadIdentityConfig({ ...env, ...(await tlsEnv('identity')) }));
      services.push(service);
      clients.push(
        await clientAsAllowedCallers(identity.IdentityServiceClient, identity.IdentityServiceService, `127.0.0.1:${service.port}`, 'identity', 10_000, {
          transport: testTransport(),
        }),
      );
    }
    [a, b] = clients as [Client, Client];
    raw = await mongoose.createConnection(mongoUrl).asPromise();
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    for (const service of services) await service.stop();
    await raw?.db?.dropDatabase();
    await raw?.close();
    jwks?.close();
  });

  it('tells the sign-in screen who may sign up and whether passwords sign in', async () => {
    await expect(b.getSignUpOptions({})).resolves.toEqual({ signUp: 'domain', domains: ['example.org', 'example.com'], localSignIn: true });
  });

  it('names operators by email (any case) and by group claim; an unverified email of an identity provider does not count', async () => {
    const ops = await signUp(OPERATOR_EMAIL);
    expect((await b.verifySession({ token: ops.token })).operator).toBe(true);
    expect((await b.verifySession({ token: (await signUp()).token })).operator).toBe(false);
    const grouped = await idpToken('emp-1', { email: 'grace@campus.example', groups: ['staff', 'sandbox-operators'] });
    expect((await b.verifySession({ token: grouped })).operator).toBe(true);
    const unverified = await idpToken('emp-2', { email: OPERATOR_EMAIL, email_verified: false });
    expect((await b.verifySession({ token: unverified })).operator).toBe(false);
    const verified = await idpToken('emp-3', { email: OPERATOR_EMAIL, email_verified: true });
    expect((await b.verifySession({ token: verified })).operator).toBe(true);
  });

  it('when a user is disabled, then their sessions, sign-in and app credentials are refused on the other replica, and enabling restores them all', async () => {
    const learner = await signUp();
    const { app, issued } = await newApp(learner.user.id);
    const provider = await idpToken(`emp-${randomBytes(3).toString('hex')}`, { email: 'kim@campus.example' });
    const kim = (await a.verifySession({ token: provider })).user!;
    for (const check of [b.verifyApiKey({ apiKey: issued.apiKey! }), b.verifyBasic({ appId: app.appId, appSecret: issued.appSecret! })]) {
      expect((await check).check?.ok).toBe(true); // now cached on b, for up to 500 ms
    }
    const disabled = await a.adminSetUserDisabled({ operator: CLI, userId: learner.user.id, disabled: true });
    await a.adminSetUserDisabled({ operator: CLI, userId: kim.id, disabled: true });
    expect(disabled.user).toMatchObject({ disabled: true, appCount: 1 });
    const reason = "The app's owner account has been disabled by an operator; its credentials work again only if the account is enabled.";
    await until(async () => (await b.verifyApiKey({ apiKey: issued.apiKey! })).check?.ok === false);
    expect((await b.verifyBasic({ appId: app.appId, appSecret: issued.appSecret! })).check).toEqual({ ok: false, reason, principal: undefined });
    expect((await b.verifyBearerToken({ bearerToken: issued.bearerToken! })).check).toEqual({ ok: false, reason, principal: undefined });
    expect(await b.lookupApp({ appId: app.appId })).toMatchObject({ found: true, active: false });
    expect(await b.getSigningKey({ appId: app.appId })).toMatchObject({ found: true, active: false, apiKey: '' });
    const accountDisabled = {
      status: GrpcStatus.PERMISSION_DENIED,
      code: 'account_disabled',
      message: 'An operator has disabled this account: ask whoever runs this sandbox to enable it again.',
    };
    expect(await refusalOf(b.verifySession({ token: learner.token }))).toEqual(accountDisabled);
    expect(await refusalOf(b.verifySession({ token: provider }))).toEqual(accountDisabled);
    expect(await refusalOf(b.login({ email: learner.email, password: PASSWORD, clientAddress: anAddress() }))).toEqual(accountDisabled);
    expect((await a.adminListAudit({ operator: CLI, pageSize: 2, pageToken: '' })).entries.map((e) => [e.action, e.targetUserId, e.targetEmail])).toEqual([
      ['user.disable', kim.id, 'kim@campus.example'],
      ['user.disable', learner.user.id, learner.email],
    ]);

    await a.adminSetUserDisabled({ operator: CLI, userId: learner.user.id, disabled: false });
    await until(async () => (await b.verifyApiKey({ apiKey: issued.apiKey! })).check?.ok === true);
    // b remembers each lookup for up to 500 ms, by API key and by App ID apart: the App ID's entry, made
    // after the API key's above, may outlive it by as much as the machine was slow in between.
    await until(async () => (await b.getSigningKey({ appId: app.appId })).active);
    expect(await b.getSigningKey({ appId: app.appId })).toMatchObject({ active: true, apiKey: issued.apiKey });
    expect((await b.verifySession({ token: learner.token })).user?.id).toBe(learner.user.id);
    expect((await b.login({ email: learner.email, password: PASSWORD, clientAddress: anAddress() })).user?.id).toBe(learner.user.id);
    expect(await latestAudit()).toMatchObject({ action: 'user.enable', actor: CLI_ACTOR, targetUserId: learner.user.id });
    expect((await refusalOf(b.verifySession({ token: provider }))).code).toBe('account_disabled');
  });

  it('an operator signed in to the portal cannot disable or delete their own account', async () => {
    const ops = await signInOperator();
    const self: identity.OperatorCredential = { sessionToken: ops.token, statedUser: '' };
    for (const call of [
      a.adminSetUserDisabled({ operator: self, userId: ops.user.id, disabled: true }),
      a.adminDeleteUser({ operator: self, userId: ops.user.id }),
    ]) {
      expect((await refusalOf(call)).code).toBe('cannot_act_on_self');
    }
    expect((await refusalOf(a.adminDeleteUser({ operator: CLI, userId: 'ffffffffffffffffffffffff' }))).code).toBe('user_not_found');
    expect((await refusalOf(a.adminGetUser({ operator: CLI, userId: 'not-an-id' }))).status).toBe(GrpcStatus.NOT_FOUND);
  });

  describe('who acts is what identity verified (issue #31)', () => {
    let asGateway: Client;
    beforeAll(async () => {
      asGateway = promiseClient(
        identity.IdentityServiceClient,
        identity.IdentityServiceService,
        `127.0.0.1:${services[0]!.port}`,
        'identity',
        10_000,
        await tlsAs('gateway'),
        { transport: testTransport() },
      );
    });
    afterAll(() => asGateway?.close());

    it("when the gateway's certificate calls an admin RPC without an operator's session, then every one is refused, reads included", async () => {
      const learner = await signUp();
      const none: identity.OperatorCredential = { sessionToken: '', statedUser: 'root@admin-pod' };
      const refusals = await Promise.all([
        refusalOf(asGateway.adminListUsers({ operator: undefined, pageSize: 0, pageToken: '', emailContains: '' })),
        refusalOf(asGateway.adminGetUser({ operator: none, userId: learner.user.id })),
        refusalOf(asGateway.adminListAudit({ operator: none, pageSize: 1, pageToken: '' })),
        refusalOf(asGateway.adminSetUserDisabled({ operator: none, userId: learner.user.id, disabled: true })),
        refusalOf(asGateway.adminDeleteUser({ operator: none, userId: learner.user.id })),
        refusalOf(asGateway.adminPurge({ operator: none, before: '2999-01-01', dryRun: true })),
        refusalOf(asGateway.adminUsage({ operator: none, from: '', to: '' })),
      ]);
      for (const refusal of refusals) {
        expect(refusal).toMatchObject({ status: GrpcStatus.PERMISSION_DENIED, code: 'operator_required' });
        expect(refusal.message).toMatch(/operator's session/);
      }
      expect((await b.verifySession({ token: learner.token })).user?.id).toBe(learner.user.id);
      expect((await a.adminGetUser({ operator: CLI, userId: learner.user.id })).user?.disabled).toBe(false);
    });

    it("when the session is a learner's, signed out, or not a session at all, then refused with the reason", async () => {
      const learner = await signUp();
      const target = await signUp();
      const as = (sessionToken: string) =>
        asGateway.adminSetUserDisabled({ operator: { sessionToken, statedUser: '' }, userId: target.user.id, disabled: true });
      expect(await refusalOf(as(learner.token))).toMatchObject({ status: GrpcStatus.PERMISSION_DENIED, code: 'operator_required' });
      expect((await refusalOf(as('not-a-session'))).status).toBe(GrpcStatus.UNAUTHENTICATED);
      const gone = await signUp();
      await a.logout({ token: gone.token });
      expect((await refusalOf(as(gone.token))).code).toBe('session_ended');
      expect((await a.adminGetUser({ operator: CLI, userId: target.user.id })).user?.disabled).toBe(false);
    });

    it("when an operator's session comes through the gateway, then the audit log names that operator, whatever else the call says", async () => {
      const ops = await signInOperator();
      const target = await signUp();
      // A stated user is the CLI's to give: beside a session it is ignored.
      await asGateway.adminSetUserDisabled({ operator: { sessionToken: ops.token, statedUser: 'root@admin-pod' }, userId: target.user.id, disabled: true });
      expect(await latestAudit()).toMatchObject({
        action: 'user.disable',
        targetUserId: target.user.id,
        actor: { kind: 'session', id: ops.user.id, email: ops.email, statedUser: '' },
      });
    });

    it("when the CLI's certificate calls, then the CLI is audited by that certificate, with the user it states kept beside as stated", async () => {
      const target = await signUp();
      await a.adminSetUserDisabled({ operator: { sessionToken: '', statedUser: 'kim@laptop' }, userId: target.user.id, disabled: true });
      expect(await latestAudit()).toMatchObject({
        action: 'user.disable',
        targetUserId: target.user.id,
        actor: { kind: 'cli', id: 'cli', email: '', statedUser: 'kim@laptop' },
      });
      expect(
        (await refusalOf(a.adminSetUserDisabled({ operator: { sessionToken: '', statedUser: 'kim\n@laptop' }, userId: target.user.id, disabled: false }))).code,
      ).toBe('invalid_stated_user');
    });
  });

  it('counts usage from both replicas, by app or App ID, in the user list and the export; malformed counts are dropped', async () => {
    const learner = await signUp();
    const { app } = await newApp(learner.user.id);
    await a.recordRequests({
      entries: [],
      usage: [usage(app.id, 3), usage('', 2, { appId: app.appId }), usage(app.id, 4, { authStyle: 'basic', routeFamily: 'auth' })],
    });
    await b.recordRequests({
      entries: [],
      usage: [usage(app.id, 5), usage(app.id, 7, { day: '2030-02-30' }), usage(app.id, -1), usage('ffffffffffffffffffffffff', 9)],
    });
    const { user, apps } = await b.adminGetUser({ operator: CLI, userId: learner.user.id });
    expect(user).toMatchObject({ appCount: 1, requestCount: 14, disabled: false, operator: false });
    expect(apps.map((x) => x.appId)).toEqual([app.appId]);
    expect(JSON.stringify(apps)).not.toMatch(/"(hash|sealed|lookup)"/);
    const day = new Date().toISOString().slice(0, 10);
    const { rows } = await a.adminUsage({ operator: CLI, from: day, to: day });
    expect(rows.filter((row) => row.userId === learner.user.id)).toEqual([
      {
        day,
        userId: learner.user.id,
        email: learner.email,
        app: app.id,
        appId: app.appId,
        appName: 'Practice app',
        authStyle: 'api_key_header',
        routeFamily: 'data',
        requests: 10,
      },
      {
        day,
        userId: learner.user.id,
        email: learner.email,
        app: app.id,
        appId: app.appId,
        appName: 'Practice app',
        authStyle: 'basic',
        routeFamily: 'auth',
        requests: 4,
      },
    ]);
    expect(await latestAudit()).toMatchObject({ action: 'usage.export', actor: CLI_ACTOR });
    expect((await refusalOf(a.adminUsage({ operator: CLI, from: '2030-13-01', to: '' }))).code).toBe('invalid_day');
  });

  it('when gateways flush the same counts to both replicas at once, then every request is counted', async () => {
    const learner = await signUp();
    const { app } = await newApp(learner.user.id);
    const flushes = Array.from({ length: 30 }, (_, i) =>
      (i % 2 === 0 ? a : b).recordRequests({ entries: [], usage: [usage(app.id, 1), usage('', 2, { appId: app.appId, routeFamily: 'auth' })] }),
    );
    await Promise.all(flushes);
    expect((await a.adminGetUser({ operator: CLI, userId: learner.user.id })).user?.requestCount).toBe(90);
    const day = new Date().toISOString().slice(0, 10);
    const rows = (await b.adminUsage({ operator: CLI, from: day, to: day })).rows.filter((row) => row.userId === learner.user.id);
    expect(rows.map((row) => [row.routeFamily, row.requests])).toEqual([
      ['auth', 60],
      ['data', 30],
    ]);
  });

  it('when a user is deleted, then their apps, logs, usage, limits and sessions are gone, and an identity provider user is not re-created from an older token', async () => {
    const learner = await signUp();
    const { app, issued } = await newApp(learner.user.id);
    await a.recordRequests({
      entries: [
        {
          app: app.id,
          time: new Date().toISOString(),
          method: 'GET',
          path: '/playground/data/hr/employees',
          status: 200,
          authStyle: 'api_key_header',
          latencyMs: 1,
          requestId: 'r-1',
          appId: '',
          failure: '',
          facts: {},
        },
      ],
      usage: [usage(app.id, 1)],
    });
    await a.adminSetAppLimit({ operator: CLI, appId: app.appId, exempt: true, perSecond: 0, burst: 0 });
    const deleted = await a.adminDeleteUser({ operator: CLI, userId: learner.user.id });
    expect(deleted).toEqual({ userId: learner.user.id, appsDeleted: 1, appIds: [app.appId] });
    await until(async () => (await b.verifyApiKey({ apiKey: issued.apiKey! })).check?.ok === false);
    expect((await refusalOf(b.verifySession({ token: learner.token }))).status).toBe(GrpcStatus.UNAUTHENTICATED);
    for (const collection of ['apps', 'request_logs', 'usage', 'sessions', 'app_limits']) {
      expect(
        await raw
          .collection<{ _id: string }>(collection)
          .countDocuments({ $or: [{ ownerId: learner.user.id }, { app: app.id }, { userId: learner.user.id }, { _id: app.appId }] }),
      ).toBe(0);
    }
    expect((await b.listAppLimits({})).limits.map((limit) => limit.appId)).not.toContain(app.appId);
    expect(await latestAudit()).toMatchObject({ action: 'user.delete', targetEmail: learner.email, detail: `1 app deleted: ${app.appId}` });

    const before = Math.floor(Date.now() / 1000) - 30;
    const old = await idpToken('emp-9', { email: 'ivy@campus.example' }, before);
    const first = await a.verifySession({ token: old });
    await a.adminDeleteUser({ operator: CLI, userId: first.user!.id });
    expect(await refusalOf(b.verifySession({ token: old }))).toEqual({
      status: GrpcStatus.UNAUTHENTICATED,
      code: 'account_deleted',
      message: 'An operator deleted this account; sign in through the identity provider again to start a new one.',
    });
    expect((await refusalOf(a.adminGetUser({ operator: CLI, userId: first.user!.id }))).code).toBe('user_not_found');
    const fresh = await b.verifySession({ token: await idpToken('emp-9', { email: 'ivy@campus.example' }, Math.floor(Date.now() / 1000) + 2) });
    expect(fresh.user!.id).not.toBe(first.user!.id);
  });

  it('purges everyone created before a moment except operators, old usage and log entries (a dry run first says the same and changes nothing), with one audit entry', async () => {
    const ops = await signUp(`p${randomBytes(3).toString('hex')}@example.org`);
    await a.verifySession({ token: ops.token }); // not an operator by email...
    const grouped = await idpToken(`op-${randomBytes(3).toString('hex')}`, { groups: ['sandbox-operators'] });
    const groupOperator = (await a.verifySession({ token: grouped })).user!; // ...this one is, by its group
    const learner = await signUp();
    const { app } = await newApp(learner.user.id);
    await a.recordRequests({ entries: [], usage: [usage(app.id, 3, { day: '2000-01-01', lastAt: '2000-01-01T10:00:00Z' }), usage(app.id, 4)] });
    const moment = new Date(Date.now() + 1000).toISOString();
    const dry = await a.adminPurge({ operator: CLI, before: moment, dryRun: true });
    expect(dry.users).toBeGreaterThanOrEqual(2);
    expect(dry.appIds).toContain(app.appId);
    expect(dry.usageRows).toBeGreaterThanOrEqual(1);
    expect(await a.adminGetUser({ operator: CLI, userId: learner.user.id })).toBeDefined();
    expect(await raw.collection('usage').countDocuments({ app: app.id })).toBe(2);
    expect((await latestAudit())?.action).not.toBe('purge');

    const purged = await b.adminPurge({ operator: CLI, before: moment, dryRun: false });
    expect(purged).toEqual(dry);
    expect((await refusalOf(a.adminGetUser({ operator: CLI, userId: learner.user.id }))).code).toBe('user_not_found');
    expect((await refusalOf(a.adminGetUser({ operator: CLI, userId: ops.user.id }))).code).toBe('user_not_found');
    expect(await raw.collection('usage').countDocuments({ day: { $lt: moment.slice(0, 10) } })).toBe(0);
    expect(await raw.collection('request_logs').countDocuments({ time: { $lt: new Date(moment) } })).toBe(0);
    expect((await a.adminGetUser({ operator: CLI, userId: groupOperator.id })).user).toMatchObject({ operator: true });
    const listed = await a.adminListUsers({ operator: CLI, pageSize: 0, pageToken: '', emailContains: '' });
    expect(listed.users.map((u) => u.user!.email)).toContain(OPERATOR_EMAIL);
    expect(await latestAudit()).toMatchObject({
      action: 'purge',
      actor: CLI_ACTOR,
      detail: expect.stringMatching(/^before .*: \d+ users?, \d+ apps?, \d+ usage rows?, \d+ log entr(y|ies) deleted \(operators spared\)$/),
    });
    expect(await refusalOf(a.adminPurge({ operator: CLI, before: 'last tuesday', dryRun: true }))).toEqual({
      status: GrpcStatus.INVALID_ARGUMENT,
      code: 'invalid_before',
      message: 'before must be a date (2030-01-31) or an RFC 3339 date-time (2030-01-31T17:00:00Z).',
    });
  });

  it('reads the audit log newest first, a page at a time, from either replica', async () => {
    const learner = await signUp();
    for (const disabled of [true, false, true]) await a.adminSetUserDisabled({ operator: CLI, userId: learner.user.id, disabled });
    const first = await b.adminListAudit({ operator: CLI, pageSize: 2, pageToken: '' });
    const second = await a.adminListAudit({ operator: CLI, pageSize: 1, pageToken: first.nextPageToken });
    expect([...first.entries, ...second.entries].map((e) => e.action)).toEqual(['user.disable', 'user.enable', 'user.disable']);
    expect(first.entries[0]).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      at: expect.any(String),
      actor: CLI_ACTOR,
      targetUserId: learner.user.id,
    });
    expect((await refusalOf(a.adminListAudit({ operator: CLI, pageSize: 2, pageToken: 'garbage' }))).code).toBe('invalid_page_token');
  });

  it('lists users oldest first, a page at a time, filtered by part of the email', async () => {
    const tag = randomBytes(3).toString('hex');
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await signUp(`list-${tag}-${i}@example.com`));
    const first = await a.adminListUsers({ operator: CLI, pageSize: 2, pageToken: '', emailContains: `LIST-${tag}` });
    expect(first.total).toBe(3);
    expect(first.users.map((u) => u.user!.email)).toEqual([made[0]!.email, made[1]!.email]);
    const second = await b.adminListUsers({ operator: CLI, pageSize: 2, pageToken: first.nextPageToken, emailContains: `list-${tag}` });
    expect({ emails: second.users.map((u) => u.user!.email), next: second.nextPageToken }).toEqual({ emails: [made[2]!.email], next: '' });
    expect((await refusalOf(a.adminListUsers({ operator: CLI, pageSize: 2, pageToken: 'garbage!', emailContains: '' }))).code).toBe('invalid_page_token');
    expect((await a.adminListUsers({ operator: CLI, pageSize: 1, pageToken: '', emailContains: '.*' })).total).toBe(0);
  });

  it("sets, lists and clears an app's own limit, refusing what is not a limit or not an app", async () => {
    const learner = await signUp();
    const { app } = await newApp(learner.user.id);
    const set = await a.adminSetAppLimit({ operator: CLI, appId: app.appId, exempt: false, perSecond: 500, burst: 1000 });
    expect(set.limit).toMatchObject({ appId: app.appId, exempt: false, perSecond: 500, burst: 1000, setBy: CLI_ACTOR });
    expect((await b.listAppLimits({})).limits).toContainEqual(expect.objectContaining({ appId: app.appId, perSecond: 500 }));
    expect(await latestAudit()).toMatchObject({ action: 'app_limit.set', targetUserId: learner.user.id, detail: `${app.appId}: 500/s, burst 1000` });
    expect((await refusalOf(a.adminSetAppLimit({ operator: CLI, appId: app.appId, exempt: false, perSecond: 0, burst: 10 }))).code).toBe('invalid_limit');
    expect((await refusalOf(a.adminSetAppLimit({ operator: CLI, appId: app.appId, exempt: false, perSecond: 5, burst: 0 }))).code).toBe('invalid_limit');
    expect((await refusalOf(a.adminSetAppLimit({ operator: CLI, appId: 'app_AAAAAAAAAAAAAAAAAAAAAA', exempt: true, perSecond: 0, burst: 0 }))).code).toBe(
      'app_not_found',
    );
    await b.adminClearAppLimit({ operator: CLI, appId: app.appId });
    expect((await a.listAppLimits({})).limits.map((limit) => limit.appId)).not.toContain(app.appId);
    expect((await refusalOf(a.adminClearAppLimit({ operator: CLI, appId: app.appId }))).code).toBe('app_limit_not_found');
    expect((await latestAudit()).action).toBe('app_limit.clear');
  });
});

/** Polls until the check holds, for at most 5 s: another replica's cache lives up to 500 ms. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
