import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import mongoose from 'mongoose';
import {
  apiRequest,
  createApp,
  eventually,
  isolatedMongoUrl,
  registerUser,
  requireStoreUrls,
  runAdminCli,
  startSystem,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';

jest.setTimeout(180_000);
const run = promisify(execFile);

/*
 * Classes for instructors (docs/exercises.md, "Classes"), through the whole
 * system on MongoDB (FerretDB) and Redis: an operator creates a class,
 * learners join it from the portal API, their apps make real requests
 * (curl and Node's fetch), identity judges them from the request-log
 * batches, and the operator's view, CSV and CLI show the class's grid.
 */

const suffix = randomBytes(3).toString('hex');
const OPERATOR = `ops-${suffix}@example.org`;
const DOMAIN = 'uni.example.edu';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read by path, not by types
type Json = Record<string, any>;

describe('classes for instructors', () => {
  let system: RunningSystem;
  let mongoUrl: string;
  let base: string;
  let operator: string;
  const expectError = (res: RawResponse, status: number, code: string) =>
    expect({ status: res.status, code: res.json().error?.code }).toEqual({ status, code });
  const as = (token: string) => (method: string, path: string, body?: unknown) =>
    apiRequest(base, method, path, { token, ...(body === undefined ? {} : { body }) });
  const curl = async (...args: string[]) => (await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', ...args])).stdout;

  beforeAll(async () => {
    mongoUrl = isolatedMongoUrl('classes');
    system = await startSystem({ MONGO_URL: mongoUrl, REDIS_URL: requireStoreUrls().redisUrl, OPERATOR_EMAILS: OPERATOR });
    base = system.baseUrl;
    operator = await registerUser(base, OPERATOR);
  });
  afterAll(async () => {
    await system?.stop();
    if (mongoUrl) {
      const connection = await mongoose.createConnection(mongoUrl).asPromise();
      await connection.db?.dropDatabase();
      await connection.close();
    }
  });

  it('when an operator runs a class, then learners join by code, the grid, common refusal, CSV and CLI follow their requests, and deletion, leaving and the class going are reflected', async () => {
    const ops = as(operator);
    expect((await ops('GET', '/api/me')).json().operator).toBe(true);

    // ---- the operator creates a class ----
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const endsAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    expectError(await ops('POST', '/api/admin/classes', { name: 'Bad dates', startsAt: endsAt, endsAt: startsAt }), 400, 'invalid_class_dates');
    const created = await ops('POST', '/api/admin/classes', { name: `Autumn cohort ${suffix}`, startsAt, endsAt, signUpDomain: DOMAIN });
    expect(created.status).toBe(201);
    const klass = created.json();
    expect(klass).toMatchObject({ name: `Autumn cohort ${suffix}`, signUpDomain: DOMAIN, learners: 0 });
    expect(klass.joinCode).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect((await ops('GET', '/api/admin/classes')).json().classes[0]).toEqual(klass);

    // ---- learners join ----
    const ada = await registerUser(base, `ada-${suffix}@${DOMAIN}`);
    const bob = await registerUser(base, `bob-${suffix}@${DOMAIN}`);
    const eve = await registerUser(base, `eve-${suffix}@elsewhere.example`);
    expect((await as(ada)('GET', '/api/me')).json().operator).toBe(false);
    const typed = ` ${klass.joinCode.toLowerCase().replace('-', ' ')} `;
    const joined = await as(ada)('POST', '/api/classes/join', { code: typed });
    expect(joined.status).toBe(200);
    const summary = { id: klass.id, name: klass.name, startsAt: klass.startsAt, endsAt: klass.endsAt };
    expect(joined.json()).toEqual({ class: summary });
    // Joining again is harmless.
    expect((await as(ada)('POST', '/api/classes/join', { code: klass.joinCode })).status).toBe(200);
    expect((await as(bob)('POST', '/api/classes/join', { code: klass.joinCode })).status).toBe(200);
    const outside = await as(eve)('POST', '/api/classes/join', { code: klass.joinCode });
    expectError(outside, 403, 'class_domain_not_allowed');
    expect(outside.json().error.message).toContain(DOMAIN);
    expectError(await as(eve)('POST', '/api/classes/join', { code: 'ZZZZ-ZZZZ' }), 404, 'class_not_found');
    expectError(await as(eve)('POST', '/api/classes/join', { code: 'hello' }), 400, 'invalid_join_code');
    expect((await as(ada)('GET', '/api/classes')).json()).toEqual({ classes: [summary] });
    expect((await as(eve)('GET', '/api/classes')).json()).toEqual({ classes: [] });

    // ---- a learner is 404 on every operator route ----
    for (const [method, path] of [
      ['POST', '/api/admin/classes'],
      ['GET', '/api/admin/classes'],
      ['GET', `/api/admin/classes/${klass.id}`],
      ['GET', `/api/admin/classes/${klass.id}/grid.csv`],
      ['DELETE', `/api/admin/classes/${klass.id}`],
    ] as const) {
      expect([method, path, (await as(ada)(method, path, method === 'POST' ? {} : undefined)).status]).toEqual([method, path, 404]);
    }

    // ---- their apps make requests; the grid follows ----
    const adaApp = await createApp(base, ada, { name: 'Ada app' });
    const bobApp = await createApp(base, bob, { name: 'Bob app' });
    expect(await curl('-u', `${adaApp.appId}:as_not-the-secret`, `${base}/playground/auth/basic`)).toBe('401');
    expect(await curl('-u', `${bobApp.appId}:as_not-the-secret`, `${base}/playground/auth/basic`)).toBe('401');
    const view = (accept: (v: Json) => boolean) =>
      eventually(async () => (await ops('GET', `/api/admin/classes/${klass.id}`)).json() as Json, accept, 30_000, 200).then((r) => r.value);
    const basicOf = (v: Json) => (v.exercises as Json[]).find((e) => e.id === 'auth-basic')!;
    const attempted = await view((v) => basicOf(v).attempted === 2);
    expect(attempted.stuckMinutes).toBe(15);
    expect(attempted.class.learners).toBe(2);
    expect(basicOf(attempted)).toMatchObject({ done: 0, attempted: 2, stuck: 0, commonRefusal: { learners: 2 } });
    expect(basicOf(attempted).commonRefusal.hint).toMatch(/401/);
    const adaRow = (v: Json) => (v.learners as Json[]).find((l) => l.email.startsWith('ada-'))!;
    expect(adaRow(attempted).cells['auth-basic']).toMatchObject({ status: 'attempted', stuck: false, hint: basicOf(attempted).commonRefusal.hint });

    const ok = await fetch(`${base}/playground/auth/basic`, {
      headers: { Authorization: `Basic ${Buffer.from(`${adaApp.appId}:${adaApp.appSecret}`).toString('base64')}` },
    });
    expect(ok.status).toBe(200);
    const done = await view((v) => basicOf(v).done === 1);
    expect(basicOf(done)).toMatchObject({ done: 1, attempted: 1, commonRefusal: { learners: 1 } });
    expect(adaRow(done).cells['auth-basic']).toMatchObject({ status: 'done', stuck: false });
    expect(adaRow(done).done).toBeGreaterThanOrEqual(1);
    expect(Object.keys(adaRow(done).cells)).toEqual((done.exercises as Json[]).map((e) => e.id));
    expectError(await ops('GET', `/api/admin/classes/${klass.id}?stuckMinutes=1441`), 400, 'invalid_stuck_minutes');
    expect((await ops('GET', `/api/admin/classes/${klass.id}?stuckMinutes=0`)).status).toBe(400);

    // ---- CSV ----
    const csv = await ops('GET', `/api/admin/classes/${klass.id}/grid.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="class-Autumn-cohort-${suffix}.csv"`);
    const lines = csv.body.trimEnd().split('\r\n');
    const header = lines[0]!.split(',');
    expect(header.slice(0, 3)).toEqual(['email', 'joined_at', 'done']);
    const column = header.indexOf('auth-basic');
    expect(column).toBeGreaterThan(2);
    const csvRow = (who: string) => lines.find((line) => line.startsWith(who))!.split(',');
    expect(csvRow('ada-')[column]).toBe('done');
    expect(csvRow('bob-')[column]).toBe('attempted');
    expect(lines).toHaveLength(3);

    // ---- the CLI against the same system ----
    const shown = await runAdminCli(system.env, 'classes', 'show', klass.id);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(klass.joinCode);
    expect(shown.stdout).toContain('auth-basic');
    expect(shown.stdout).toMatch(new RegExp(`ada-${suffix}@${DOMAIN.replace(/\./g, '\\.')}`));
    const cliCsv = await runAdminCli(system.env, 'classes', 'csv', klass.id);
    expect(cliCsv.code).toBe(0);
    expect(cliCsv.stdout.trimEnd().split('\r\n')).toEqual(lines);
    const listed = await runAdminCli(system.env, 'classes', 'list', '--json');
    expect(JSON.parse(listed.stdout).classes.map((c: Json) => c.id)).toContain(klass.id);
    expect((await runAdminCli(system.env, 'classes', 'frobnicate')).code).toBe(2);

    // ---- a deleted learner leaves the class view ----
    const bobId = (await as(bob)('GET', '/api/me')).json().id;
    expect((await ops('DELETE', `/api/admin/users/${bobId}`)).status).toBe(200);
    const afterDeletion = (await ops('GET', `/api/admin/classes/${klass.id}`)).json();
    expect(afterDeletion.learners.map((l: Json) => l.email)).toEqual([`ada-${suffix}@${DOMAIN}`]);
    expect(basicOf(afterDeletion)).toMatchObject({ done: 1, attempted: 0 });
    expect(basicOf(afterDeletion).commonRefusal).toBeUndefined();

    // ---- leaving, then the class going ----
    const left = await as(ada)('DELETE', `/api/classes/${klass.id}`);
    expect(left.status).toBe(204);
    expect((await as(ada)('GET', '/api/classes')).json()).toEqual({ classes: [] });
    expectError(await as(ada)('DELETE', `/api/classes/${klass.id}`), 404, 'class_not_found');
    expect((await ops('GET', `/api/admin/classes/${klass.id}`)).json().learners).toEqual([]);
    expect((await ops('DELETE', `/api/admin/classes/${klass.id}`)).status).toBe(204);
    expectError(await ops('GET', `/api/admin/classes/${klass.id}`), 404, 'class_not_found');
    const actions = ((await ops('GET', '/api/admin/audit')).json().entries as Json[]).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['class.create', 'class.delete']));
  });
});
