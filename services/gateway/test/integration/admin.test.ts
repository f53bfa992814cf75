import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { parse } from 'yaml';
import {
  apiRequest,
  createApp,
  eventually,
  isolatedMongoUrl,
  rawRequest,
  rawSocketExchange,
  registerUser,
  requireStoreUrls,
  runAdminCli,
  startSystem,
  type CreatedApp,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';
import type { Route } from '../../src/http/route';
import { offlineOpenApiDocument, routeTable } from '../../src/openapi/offline-document';

jest.setTimeout(180_000);

/*
 * The operators' API and CLI (issue #22, docs/operators.md), through two
 * gateway replicas sharing MongoDB and Redis, as a class's cluster runs
 * them: every operation and its audit entry; the unknown path's 404, byte
 * for byte, for anyone else on every operator row; the rows in the map and
 * the OpenAPI document for operators only; a deletion reaching the other
 * replica within a second; the usage export; the CLI as a child process.
 */

const OPERATOR = `ops-${randomBytes(3).toString('hex')}@example.org`;
const REDIRECT = 'http://127.0.0.1:9/callback';
/** A deletion is seen by every replica within a second (credential caches live at most 500 ms in the gateway and in oauth). */
const DELETION_RULE_MS = 1000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents are read by path, not by types
type Json = Record<string, any>;

const operatorRows = (): Route[] => routeTable().filter((row) => row.operatorOnly);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const today = () => new Date().toISOString().slice(0, 10);

describe("the operators' API and CLI, on two gateway replicas", () => {
  let system: RunningSystem;
  let mongoUrl: string;
  /** Gateway A and gateway B, sharing the stores. */
  let A: string;
  let B: string;
  let operator: string;
  let operatorId: string;
  let learner: string;
  let learnerApp: CreatedApp;

  const admin = (method: string, path: string, options: { body?: unknown; token?: string; via?: string } = {}) =>
    apiRequest(options.via ?? A, method, path, { token: options.token ?? operator, ...(options.body === undefined ? {} : { body: options.body }) });
  const userIdOf = async (token: string) => (await apiRequest(A, 'GET', '/api/me', { token })).json().id as string;
  const expectError = (res: RawResponse, status: number, code: string) =>
    expect({ status: res.status, code: res.json().error?.code }).toEqual({ status, code });
  /** The newest audit entries, newest first. */
  const audit = async () => (await admin('GET', '/api/admin/audit')).json().entries as Json[];

  beforeAll(async () => {
    mongoUrl = isolatedMongoUrl('admin');
    system = await startSystem({ REPLICAS: '2', MONGO_URL: mongoUrl, REDIS_URL: requireStoreUrls().redisUrl, OPERATOR_EMAILS: OPERATOR });
    [A, B] = /Training Sandbox is ready at ([^(]+)\(/.exec(system.output())![1]!.trim().split(' ') as [string, string];
    operator = await registerUser(A, OPERATOR);
    operatorId = await userIdOf(operator);
    learner = await registerUser(A);
    learnerApp = await createApp(A, learner, { name: 'Learner app' });
  });
  afterAll(async () => {
    await system?.stop();
    if (mongoUrl) {
      const connection = await mongoose.createConnection(mongoUrl).asPromise();
      await connection.db?.dropDatabase();
      await connection.close();
    }
  });

  describe('to anyone but an operator, the operator rows do not exist', () => {
    /** The row's path with its parameters filled in. */
    const pathOf = (row: Route) => row.path.replace(':id', 'a'.repeat(24)).replace(':appId', 'app_Xq3V0d5yH2kq8Jr1mT9bWg');
    /** The same path with one letter changed, so no row serves it: the same length, so the same Content-Length. */
    const unknownTwin = (path: string) => path.replace('/api/admin/', '/api/admix/');
    const exchange = (baseUrl: string, method: string, path: string, headers: Record<string, string>, body = '') =>
      rawSocketExchange(
        baseUrl,
        `${method} ${path} HTTP/1.1\r\nHost: sandbox.test\r\nX-Request-Id: conceal-1\r\nConnection: close\r\n${Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}${body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`,
      );
    /** An answer with its Date line taken out (the one header that changes by itself). */
    const undated = (answer: string) => answer.replace(/\r\nDate: [^\r]*/i, '');

    it("when there is no session, a learner's, an ended one, a made-up one or an app credential, then every method of every operator row answers exactly an unknown path's 404", async () => {
      const ended = await registerUser(A);
      expect((await apiRequest(A, 'POST', '/api/auth/logout', { token: ended })).status).toBe(200);
      const callers: Record<string, Record<string, string>> = {
        'no credential': {},
        "a learner's session": { Authorization: `Bearer ${learner}` },
        'an ended session': { Authorization: `Bearer ${ended}` },
        'a made-up token': { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl' },
        'an app API key': { 'x-api-key': learnerApp.apiKey },
        'Basic credentials': { Authorization: `Basic ${Buffer.from(`${learnerApp.appId}:${learnerApp.appSecret}`).toString('base64')}` },
      };
      const rows = operatorRows();
      expect(rows.length).toBeGreaterThanOrEqual(11);
      const differences: string[] = [];
      for (const row of rows) {
        const path = pathOf(row);
        // The row's methods, HEAD, a method no row serves there (405 for a public path) and a CORS preflight.
        const methods = [...row.methods, ...(row.methods.includes('GET') ? ['HEAD'] : []), 'PATCH', 'OPTIONS'];
        for (const [who, headers] of Object.entries(callers)) {
          for (const method of methods) {
            const extra: Record<string, string> = method === 'OPTIONS' ? { Origin: 'https://learner.example', 'Access-Control-Request-Method': 'DELETE' } : {};
            const body = row.body === 'json' && method === row.methods[0] ? '{"before":"2000-01-01","exempt":true}' : '';
            for (const gateway of [A, B]) {
              const answer = undated(await exchange(gateway, method, path, { ...headers, ...extra }, body));
              const unknown = undated(await exchange(gateway, method, unknownTwin(path), { ...headers, ...extra }, body)).replace(unknownTwin(path), path);
              if (!answer.startsWith('HTTP/1.1 404 ') || answer !== unknown)
                differences.push(`${method} ${path} with ${who}:\n${answer}\n--- an unknown path:\n${unknown}`);
            }
          }
        }
      }
      expect(differences).toEqual([]);
      // Nothing was done: the learner's app and the operator's view are as they were.
      expect((await admin('GET', '/api/admin/app-limits')).json().limits).toEqual([]);
    });

    it("when a learner reads the route map or the OpenAPI document, then no operator row is in it; an operator's has every one, as the offline document describes them", async () => {
      const operatorPaths = operatorRows().map((row) => row.path.replace(/:(\w+)/g, '{$1}'));
      for (const token of [undefined, learner]) {
        const json = (await apiRequest(A, 'GET', '/openapi.json', { token })).json();
        const yaml = parse((await apiRequest(A, 'GET', '/openapi.yaml', { token })).body);
        const map = (await apiRequest(A, 'GET', '/playground', { token })).json();
        expect(Object.keys(json.paths).filter((path) => path.startsWith('/api/admin'))).toEqual([]);
        expect(Object.keys(yaml.paths).filter((path) => path.startsWith('/api/admin'))).toEqual([]);
        expect(map.endpoints.filter((e: Json) => e.path.startsWith('/api/admin'))).toEqual([]);
        expect(JSON.stringify(json)).not.toContain('/api/admin');
      }
      const served = await apiRequest(B, 'GET', '/openapi.json', { token: operator });
      expect(served.headers.vary).toMatch(/Authorization/);
      const document = served.json();
      expect(operatorPaths.filter((path) => !document.paths[path])).toEqual([]);
      // The contract check (test/contract-setup.ts) reads the operator rows' answers against the offline operator document.
      const offline = offlineOpenApiDocument(B, { operator: true }) as Json;
      for (const path of operatorPaths) expect(document.paths[path]).toEqual(offline.paths[path]);
      const yaml = parse((await apiRequest(B, 'GET', '/openapi.yaml', { token: operator })).body);
      expect(yaml).toEqual(document);
      const map = (await apiRequest(B, 'GET', '/playground', { token: operator })).json();
      expect(new Set(map.endpoints.filter((e: Json) => e.path.startsWith('/api/admin')).map((e: Json) => e.path))).toEqual(
        new Set(operatorRows().map((row) => row.path)),
      );
      // Learners' document again: the operator's did not leak into the one kept for everybody.
      expect(Object.keys((await apiRequest(B, 'GET', '/openapi.json')).json().paths).filter((path) => path.startsWith('/api/admin'))).toEqual([]);
    });
  });

  describe('users', () => {
    it('when users are listed, then each has its app count, request count and last activity; an email part narrows the list', async () => {
      const all = await admin('GET', '/api/admin/users?page_size=200');
      expect(all.status).toBe(200);
      expect(all.headers['cache-control']).toBe('no-store');
      expect(all.headers.ratelimit).toBeUndefined();
      const learnerId = await userIdOf(learner);
      const row = all.json().users.find((u: Json) => u.id === learnerId);
      expect(row).toEqual({
        id: learnerId,
        email: expect.stringMatching(/^learner-.*@example\.org$/),
        provider: expect.any(String),
        createdAt: expect.any(String),
        disabled: false,
        operator: false,
        appCount: 1,
        requestCount: expect.any(Number),
        lastActiveAt: expect.any(String),
      });
      expect(all.json().users.find((u: Json) => u.id === operatorId)).toMatchObject({ email: OPERATOR, operator: true });
      const narrowed = (await admin('GET', `/api/admin/users?email=${encodeURIComponent(OPERATOR.slice(0, 10).toUpperCase())}`)).json();
      expect(narrowed.users.map((u: Json) => u.id)).toEqual([operatorId]);
      expect(narrowed.total).toBe(1);
    });

    it("when one user is read, then with their apps' metadata and never a secret", async () => {
      const learnerId = await userIdOf(learner);
      const res = await admin('GET', `/api/admin/users/${learnerId}`, { via: B });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({
        id: learnerId,
        appCount: 1,
        apps: [{ id: learnerApp.id, appId: learnerApp.appId, name: 'Learner app', status: 'active' }],
      });
      for (const secret of [learnerApp.appSecret, learnerApp.apiKey, learnerApp.bearerToken]) expect(res.body).not.toContain(secret);
      expect(Object.keys(res.json().apps[0])).not.toEqual(expect.arrayContaining(['appSecret']));
      expectError(await admin('GET', `/api/admin/users/${'0'.repeat(24)}`), 404, 'user_not_found');
    });

    it('when a user is disabled, then their session is refused and the audit log says who did it to whom; enabled, they work again', async () => {
      const email = `disable-me-${randomBytes(3).toString('hex')}@example.org`;
      const token = await registerUser(A, email);
      const id = await userIdOf(token);
      const disabled = await admin('POST', `/api/admin/users/${id}/disable`);
      expect(disabled.status).toBe(200);
      expect(disabled.json()).toMatchObject({ id, email, disabled: true });
      expectError(await apiRequest(B, 'GET', '/api/me', { token }), 403, 'account_disabled');
      expect((await audit())[0]).toMatchObject({
        action: 'user.disable',
        actor: { kind: 'session', id: operatorId, email: OPERATOR },
        targetUserId: id,
        targetEmail: email,
        at: expect.any(String),
        id: expect.any(String),
      });
      const enabled = await admin('POST', `/api/admin/users/${id}/enable`, { via: B });
      expect(enabled.json()).toMatchObject({ id, disabled: false });
      expect((await apiRequest(A, 'GET', '/api/me', { token })).status).toBe(200);
      expect((await audit())[0]).toMatchObject({ action: 'user.enable', actor: { kind: 'session', id: operatorId }, targetUserId: id });
    });

    it('when an operator would disable or delete their own account, then 400 cannot_act_on_self', async () => {
      expectError(await admin('POST', `/api/admin/users/${operatorId}/disable`), 400, 'cannot_act_on_self');
      expectError(await admin('DELETE', `/api/admin/users/${operatorId}`), 400, 'cannot_act_on_self');
    });
  });

  describe('app limits', () => {
    it('when an app is exempted, limited and cleared, then the list follows, each step is audited, and a wrong body or App ID is refused', async () => {
      const path = `/api/admin/apps/${learnerApp.appId}/limit`;
      const exempt = await admin('PUT', path, { body: { exempt: true } });
      expect(exempt.status).toBe(200);
      expect(exempt.json()).toEqual({
        appId: learnerApp.appId,
        exempt: true,
        setAt: expect.any(String),
        setBy: { kind: 'session', id: operatorId, email: OPERATOR },
      });
      expect((await audit())[0]).toMatchObject({ action: 'app_limit.set', actor: { id: operatorId } });
      const rate = await admin('PUT', path, { body: { perSecond: 500, burst: 1000 }, via: B });
      expect(rate.json()).toMatchObject({ appId: learnerApp.appId, exempt: false, perSecond: 500, burst: 1000 });
      expect((await admin('GET', '/api/admin/app-limits')).json().limits).toEqual([
        expect.objectContaining({ appId: learnerApp.appId, perSecond: 500, burst: 1000 }),
      ]);
      const cleared = await admin('DELETE', path);
      expect(cleared.json()).toEqual({ appId: learnerApp.appId, status: 'cleared' });
      expect((await audit())[0]).toMatchObject({ action: 'app_limit.clear' });
      expect((await admin('GET', '/api/admin/app-limits')).json().limits).toEqual([]);

      for (const body of [
        {},
        { exempt: false },
        { exempt: true, burst: 3 },
        { perSecond: 5 },
        { perSecond: 0, burst: 1 },
        { perSecond: 1, burst: 1.5 },
        { rate: 1 },
      ]) {
        expectError(await admin('PUT', path, { body }), 400, 'invalid_body');
      }
      expectError(await admin('PUT', '/api/admin/apps/app_Aa1Bb2Cc3Dd4Ee5Ff6Gg7H/limit', { body: { exempt: true } }), 404, 'app_not_found');
    });
  });

  describe('usage', () => {
    it('when an app made requests, then the CSV export counts them by day, style and family, and a formula in an app name stays text', async () => {
      const token = await registerUser(A);
      const app = await createApp(A, token, { name: '=HYPERLINK("https://evil.example","open me")' });
      for (let i = 0; i < 3; i++)
        expect((await rawRequest(`${i % 2 ? A : B}/playground/data/hr/employees?page_size=1`, { headers: { 'x-api-key': app.apiKey } })).status).toBe(200);
      expect((await rawRequest(`${A}/playground/auth/bearer`, { headers: { Authorization: `Bearer ${app.bearerToken}` } })).status).toBe(200);
      const day = today();
      const path = `/api/admin/usage.csv?from=${day}&to=${day}`;
      // The gateways send their counts about once a second.
      const { value: res } = await eventually(
        () => admin('GET', path),
        (r) => r.body.includes(`${app.appId},`) && r.body.includes(',data,3') && r.body.includes(',auth,1'),
        15_000,
        250,
      );
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="usage-${day}-${day}.csv"`);
      expect(res.headers['cache-control']).toBe('no-store');
      const lines = res.body.split('\r\n');
      expect(lines[0]).toBe('day,user_id,email,app_id,app_name,auth_style,route_family,requests');
      const mine = lines.filter((line) => line.includes(app.appId));
      expect(mine).toEqual(
        expect.arrayContaining([
          `${day},${await userIdOf(token)},${(await apiRequest(A, 'GET', '/api/me', { token })).json().email},${app.appId},"'=HYPERLINK(""https://evil.example"",""open me"")",api_key_header,data,3`,
          expect.stringMatching(new RegExp(`^${day},.*,bearer,auth,1$`)),
        ]),
      );
      expect(mine.every((line) => !/,=/.test(line))).toBe(true);
      expect((await audit())[0]).toMatchObject({ action: 'usage.export', actor: { id: operatorId } });
      expectError(await admin('GET', '/api/admin/usage.csv?from=yesterday'), 400, 'invalid_parameter');
    });
  });

  describe('deleting a user', () => {
    /** A learner with an app, its request log, and an OAuth 2.0 grant (access and refresh token). */
    async function learnerWithEverything() {
      const token = await registerUser(A);
      const app = await createApp(A, token, { name: 'Doomed app' });
      expect((await apiRequest(A, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token, body: { redirectUris: [REDIRECT] } })).status).toBe(200);
      const verifier = randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: app.appId,
        redirect_uri: REDIRECT,
        code_challenge: s256(verifier),
        code_challenge_method: 'S256',
      });
      const code = new URL((await rawRequest(`${A}/oauth/authorize?${query}`)).headers.location as string).searchParams.get('code')!;
      const basic = `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
      const tokens = await rawRequest(`${B}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }).toString(),
      });
      expect(tokens.status).toBe(200);
      const refresh = (refreshToken: string) =>
        rawRequest(`${B}/oauth/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
        });
      const data = (gateway: string) => rawRequest(`${gateway}/playground/data/hr/employees?page_size=1`, { headers: { 'x-api-key': app.apiKey } });
      expect((await data(B)).status).toBe(200);
      // Its log reaches identity within about a second.
      await eventually(
        () => apiRequest(A, 'GET', `/api/apps/${app.id}/logs`, { token }),
        (r) => r.json().total > 0,
        15_000,
        200,
      );
      return {
        token,
        app,
        id: await userIdOf(token),
        accessToken: tokens.json().access_token as string,
        refreshToken: tokens.json().refresh_token as string,
        refresh,
        data,
      };
    }

    it('when an operator deletes a user through one gateway, then through the other within a second their credentials, access token, refresh token and session are refused, and their apps and logs are gone', async () => {
      const doomed = await learnerWithEverything();
      const connection = await mongoose.createConnection(mongoUrl).asPromise();
      try {
        const logs = () => connection.db!.collection('request_logs').countDocuments({ app: doomed.app.id });
        expect(await logs()).toBeGreaterThan(0);

        const deleted = await admin('DELETE', `/api/admin/users/${doomed.id}`);
        const since = Date.now();
        expect(deleted.status).toBe(200);
        expect(deleted.json()).toEqual({ id: doomed.id, status: 'deleted', appsDeleted: 1 });

        // Probed through the other gateway for a while: every probe sent a second or more after the answer is refused.
        const late: string[] = [];
        do {
          const sentMs = Date.now() - since;
          const [data, resource] = await Promise.all([
            doomed.data(B),
            rawRequest(`${B}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${doomed.accessToken}` } }),
          ]);
          if (sentMs >= DELETION_RULE_MS && (data.status !== 401 || resource.status !== 401))
            late.push(`${sentMs} ms: data ${data.status}, access token ${resource.status}`);
          await sleep(50);
        } while (Date.now() - since < DELETION_RULE_MS + 500);
        expect(late).toEqual([]);
        // The refresh token was forgotten before the user was deleted: refused at once, and for good.
        expect((await doomed.refresh(doomed.refreshToken)).status).toBeGreaterThanOrEqual(400);
        expect((await apiRequest(B, 'GET', '/api/me', { token: doomed.token })).status).toBe(401);
        expectError(await admin('GET', `/api/admin/users/${doomed.id}`, { via: B }), 404, 'user_not_found');
        expect(await logs()).toBe(0);
        expect((await audit())[0]).toMatchObject({ action: 'user.delete', actor: { kind: 'session', id: operatorId }, targetUserId: doomed.id });
        expectError(await admin('DELETE', `/api/admin/users/${doomed.id}`), 404, 'user_not_found');
      } finally {
        await connection.close();
      }
    });
  });

  describe('the CLI, as a child process against the running system', () => {
    it("when an operator lists, reads, disables and enables a user, then tables by default and the API's JSON with --json, audited as the CLI", async () => {
      const token = await registerUser(A);
      const id = await userIdOf(token);
      const users = await runAdminCli(system.env, 'users', '--json');
      expect(users).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(users.stdout).users.map((u: Json) => u.id)).toEqual(expect.arrayContaining([id, operatorId]));
      const table = await runAdminCli(system.env, 'users', '--email', OPERATOR);
      expect(table.code).toBe(0);
      expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+EMAIL\s+PROVIDER\s+CREATED\s+APPS\s+REQUESTS\s+LAST ACTIVE\s+STATUS$/);
      expect(table.stdout).toContain(OPERATOR);
      expect(table.stdout).toMatch(/1 user\n$/);

      const one = await runAdminCli(system.env, 'user', id, '--json');
      expect(JSON.parse(one.stdout)).toEqual((await admin('GET', `/api/admin/users/${id}`)).json());
      const disabled = await runAdminCli(system.env, 'disable', id);
      expect(disabled).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Disabled /) });
      expectError(await apiRequest(A, 'GET', '/api/me', { token }), 403, 'account_disabled');
      const entry = (await audit())[0];
      expect(entry).toMatchObject({
        action: 'user.disable',
        targetUserId: id,
        actor: { kind: 'cli', id: 'cli', statedUser: expect.stringMatching(/^.+@.+$/) },
      });
      expect((await runAdminCli(system.env, 'enable', id)).code).toBe(0);
      expect((await apiRequest(A, 'GET', '/api/me', { token })).status).toBe(200);
      const log = await runAdminCli(system.env, 'audit');
      expect(log.stdout.split('\n')[0]).toMatch(/^AT\s+BY\s+ACTION\s+USER\s+DETAIL$/);
      expect(log.stdout.split('\n')[1]).toMatch(/user\.enable/);
      expect(log.stdout.split('\n')[1]).toMatch(/cli:cli \(says .+@.+\)/);
    });

    it('when the CLI runs under GRPC_TLS=accept-tls (the first step of a migration, whose processes still call in plaintext), then it calls with its certificate all the same, since identity knows it by nothing else', async () => {
      const migrating = await runAdminCli({ ...system.env, GRPC_TLS: 'accept-tls' }, 'users', '--json');
      expect({ code: migrating.code, stderr: migrating.stderr }).toEqual({ code: 0, stderr: '' });
    });

    it("when the CLI runs with the gateway's certificate instead of its own, then identity refuses every command and the CLI says which certificate it needs", async () => {
      const asGateway = await runAdminCli({ ...system.env, GRPC_TLS_DIR: join(system.env.GRPC_TLS_RUN_DIR!, 'gateway') }, 'users');
      expect(asGateway.code).toBe(1);
      expect(asGateway.stdout).toBe('');
      expect(asGateway.stderr).toMatch(/\(operator_required\)\nadmin: identity knows the CLI by its own certificate/);
    });

    it('when an operator sets and clears an app limit and exports usage, then the same as through the API', async () => {
      expect((await runAdminCli(system.env, 'limit', learnerApp.appId, '--per-second', '2.5', '--burst', '5')).code).toBe(0);
      const limits = await runAdminCli(system.env, 'limits', '--json');
      expect(JSON.parse(limits.stdout)).toEqual((await admin('GET', '/api/admin/app-limits')).json());
      expect(JSON.parse(limits.stdout).limits).toEqual([
        expect.objectContaining({ appId: learnerApp.appId, perSecond: 2.5, burst: 5, setBy: expect.objectContaining({ kind: 'cli' }) }),
      ]);
      const cleared = await runAdminCli(system.env, 'unlimit', learnerApp.appId);
      expect(cleared).toMatchObject({ code: 0, stdout: `${learnerApp.appId}: back to the default limit.\n` });
      const csv = await runAdminCli(system.env, 'usage', '--from', today());
      expect(csv.code).toBe(0);
      expect(csv.stdout.split('\r\n')[0]).toBe('day,user_id,email,app_id,app_name,auth_style,route_family,requests');
    });

    it('when the command line is wrong, then one line naming the problem and exit code 2; when a service refuses, its words and exit code 1', async () => {
      for (const args of [
        ['nonsense'],
        ['user'],
        ['users', '--bogus'],
        ['limit', learnerApp.appId],
        ['limit', learnerApp.appId, '--exempt', '--burst', '3'],
        ['purge'],
        ['purge', '--before', 'last week'],
        ['usage', '--from', '1/2/2030'],
      ]) {
        const run = await runAdminCli(system.env, ...args);
        expect({ args, code: run.code, stdout: run.stdout, lines: run.stderr.trim().split('\n').length }).toEqual({ args, code: 2, stdout: '', lines: 1 });
        expect(run.stderr).toMatch(/^admin: /);
      }
      const missing = await runAdminCli(system.env, 'user', '0'.repeat(24));
      expect(missing).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/^admin: .+\(user_not_found\)\n$/) });
      const help = await runAdminCli(system.env, 'help');
      expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining('purge --before') });
    });
  });

  // Last: a purge takes every learner of this file with it.
  describe('purge', () => {
    it('when a dry run is asked for, then it counts and deletes nothing; the real one deletes the learners created before, never an operator, and forgets their OAuth state', async () => {
      const before = await learnerOf(A);
      await sleep(20);
      const cut = new Date().toISOString();
      await sleep(20);
      const after = await learnerOf(A);

      const dry = await admin('POST', '/api/admin/purge', { body: { before: cut, dryRun: true } });
      expect(dry.status).toBe(200);
      expect(dry.json()).toMatchObject({ before: cut, dryRun: true, users: expect.any(Number), apps: expect.any(Number), usageRows: expect.any(Number) });
      expect(dry.json().users).toBeGreaterThanOrEqual(2);
      expect((await apiRequest(B, 'GET', '/api/me', { token: before.token })).status).toBe(200);

      const purged = await admin('POST', '/api/admin/purge', { body: { before: cut } });
      expect(purged.json()).toMatchObject({ before: cut, dryRun: false, users: dry.json().users, apps: dry.json().apps });
      expect((await apiRequest(B, 'GET', '/api/me', { token: before.token })).status).toBe(401);
      expect((await apiRequest(B, 'GET', '/api/me', { token: after.token })).status).toBe(200);
      expect((await apiRequest(B, 'GET', '/api/me', { token: operator })).status).toBe(200);
      expect((await before.refresh()).status).toBeGreaterThanOrEqual(400);
      expect((await audit())[0]).toMatchObject({ action: 'purge', actor: { id: operatorId } });
      expectError(await admin('POST', '/api/admin/purge', { body: { before: 'last tuesday' } }), 400, 'invalid_before');
      expectError(await admin('POST', '/api/admin/purge', { body: { dryRun: true } }), 400, 'invalid_body');
    });

    /** A learner with an app holding a refresh token. */
    async function learnerOf(gateway: string) {
      const token = await registerUser(gateway);
      const app = await createApp(gateway, token);
      await apiRequest(gateway, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token, body: { redirectUris: [REDIRECT] } });
      const verifier = randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: app.appId,
        redirect_uri: REDIRECT,
        code_challenge: s256(verifier),
        code_challenge_method: 'S256',
      });
      const code = new URL((await rawRequest(`${gateway}/oauth/authorize?${query}`)).headers.location as string).searchParams.get('code')!;
      const basic = `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
      const form = (fields: Record<string, string>) => ({
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
        body: new URLSearchParams(fields).toString(),
      });
      const tokens = (
        await rawRequest(`${gateway}/oauth/token`, form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }))
      ).json();
      return { token, refresh: () => rawRequest(`${gateway}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })) };
    }
  });
});

describe('an app limit set through the admin API feeds fair share', () => {
  let system: RunningSystem;
  let operator: string;

  beforeAll(async () => {
    // A tiny per-app budget: two requests, then one every 100 s.
    system = await startSystem({ OPERATOR_EMAILS: OPERATOR, RATE_LIMIT_APP_PER_SECOND: '0.01', RATE_LIMIT_APP_BURST: '2' });
    operator = await registerUser(system.baseUrl, OPERATOR);
  });
  afterAll(async () => system?.stop());

  it('when an app over its budget is exempted, then within about two seconds it is served again; when the exemption is cleared, refused again', async () => {
    const app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
    const data = () => rawRequest(`${system.baseUrl}/playground/data/hr/employees?page_size=1`, { headers: { 'x-api-key': app.apiKey } });
    const statuses = [(await data()).status, (await data()).status, (await data()).status];
    expect(statuses).toEqual([200, 200, 429]);

    const set = await apiRequest(system.baseUrl, 'PUT', `/api/admin/apps/${app.appId}/limit`, { token: operator, body: { exempt: true } });
    expect(set.status).toBe(200);
    const served = await eventually(data, (r) => r.status === 200, 15_000, 100);
    // The gateway polls identity every second; the margin is for a busy machine.
    expect(served.elapsedMs).toBeLessThan(5_000);
    expect(served.value.headers.ratelimit).toBeUndefined();
    for (let i = 0; i < 5; i++) expect((await data()).status).toBe(200);

    expect((await apiRequest(system.baseUrl, 'DELETE', `/api/admin/apps/${app.appId}/limit`, { token: operator })).status).toBe(200);
    const refused = await eventually(data, (r) => r.status === 429, 15_000, 100);
    expect(refused.elapsedMs).toBeLessThan(5_000);
    // The admin API itself is never refused for its rate, even with the operator's budget long spent.
    for (let i = 0; i < 5; i++) expect((await apiRequest(system.baseUrl, 'GET', '/api/admin/app-limits', { token: operator })).status).toBe(200);
  });
});
