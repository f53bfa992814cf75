import http from 'node:http';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import mongoose from 'mongoose';
import {
  apiRequest,
  createApp,
  eventually,
  isolatedMongoUrl,
  rawRequest,
  registerUser,
  requireStoreUrls,
  startSystem,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';
import { RedisSlotCounter } from '../../src/fair-share/redis-slot-counter';

jest.setTimeout(180_000);

/*
 * Every cap holds under concurrent requests spread over two gateway replicas
 * in front of two replicas of every service, with the real stores
 * (docs/state.md, "Caps under concurrency"). Answers are counted, never
 * timed: each request either lands within the cap or is refused with the
 * cap's own code, and what is stored is read back from the store.
 */
describe('caps under concurrency through two gateways (REPLICAS=2, real stores)', () => {
  const LOG_CAP = 20;
  const SLOW_CAP = 3;
  let system: RunningSystem;
  let gateways: [string, string];
  let mongoUrl: string;
  let db: mongoose.Connection;

  beforeAll(async () => {
    mongoUrl = isolatedMongoUrl('caps_replicas');
    system = await startSystem({
      REPLICAS: '2',
      MONGO_URL: mongoUrl,
      REDIS_URL: requireStoreUrls().redisUrl,
      REQUEST_LOG_CAP_PER_APP: String(LOG_CAP),
      SLOW_REQUESTS_PER_ADDRESS: String(SLOW_CAP),
      // What is under test is which answers come back, not how fast: a busy machine must not turn a creation into a 504.
      GRPC_DEADLINE_MS: '60000',
    });
    gateways = /Training Sandbox is ready at ([^(]+)\(/.exec(system.output())![1]!.trim().split(' ') as [string, string];
    db = await mongoose.createConnection(mongoUrl).asPromise();
  });
  afterAll(async () => {
    await system?.stop();
    await db?.db?.dropDatabase();
    await db?.close();
  });

  /** `count` requests at once, alternating between the two gateways. */
  const atOnce = (count: number, send: (gateway: string, i: number) => Promise<RawResponse>) =>
    Promise.all(Array.from({ length: count }, (_, i) => send(gateways[i % 2]!, i)));
  const tally = (answers: RawResponse[]) => answers.reduce<Record<string, number>>((t, a) => ({ ...t, [a.status]: (t[a.status] ?? 0) + 1 }), {});

  it('when 150 apps are created at once for one account through both gateways, then exactly 100 are stored and the other 50 are refused with 429 too_many_apps', async () => {
    expect(gateways).toHaveLength(2);
    const token = await registerUser(gateways[0]);
    const create = (gateway: string, i: number) => apiRequest(gateway, 'POST', '/api/apps', { token, body: { name: `app ${i}` } });
    const answers = await atOnce(150, create);
    expect(tally(answers)).toEqual({ 201: 100, 429: 50 });
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(refused.json()).toEqual({
        error: expect.objectContaining({ code: 'too_many_apps', message: 'An account may hold at most 100 apps; delete one first.' }),
      });
    }
    const created = answers.filter((a) => a.status === 201).map((a) => a.json().id as string);
    for (const gateway of gateways) {
      const listed = (await apiRequest(gateway, 'GET', '/api/apps', { token })).json().apps.map((app: { id: string }) => app.id);
      expect(listed.sort()).toEqual([...created].sort());
    }

    // Three deletions free three places, and no more, for twelve creations at once.
    for (const [i, id] of created.slice(0, 3).entries()) expect((await apiRequest(gateways[i % 2]!, 'DELETE', `/api/apps/${id}`, { token })).status).toBe(200);
    expect(tally(await atOnce(12, create))).toEqual({ 201: 3, 429: 9 });
    expect((await apiRequest(gateways[1], 'GET', '/api/apps', { token })).json().apps).toHaveLength(100);
  });

  it('when redirect URIs are replaced at once through both gateways, then the app ends with exactly one of the lists sent whole, never a mix, and lists over 10 are refused', async () => {
    const token = await registerUser(gateways[0]);
    const app = await createApp(gateways[1], token);
    const lists = Array.from({ length: 6 }, (_, i) => Array.from({ length: 10 }, (_, j) => `https://client-${i}.example/cb/${j}`));
    const tooLong = Array.from({ length: 11 }, (_, j) => `https://too-many.example/cb/${j}`);
    const put = (gateway: string, redirectUris: string[]) => apiRequest(gateway, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token, body: { redirectUris } });
    const answers = await atOnce(8, (gateway, i) => put(gateway, i < 6 ? lists[i]! : tooLong));

    const applied = lists.filter((_, i) => answers[i]!.status === 200);
    expect(applied.length).toBeGreaterThan(0);
    // Six changes to one app wait for its lock: one that waited over 5 s (app_busy) or ran out of its time under
    // the lock (lock_expired) is a 503 that says "try again" (docs/identity.md), and changed nothing.
    for (const answer of answers.slice(0, 6))
      if (answer.status !== 200) expect([answer.status, ['app_busy', 'lock_expired'].includes(answer.json().error.code)]).toEqual([503, true]);
    for (const answer of answers.slice(6)) expect([answer.status, answer.json().error.code]).toEqual([400, 'too_many_redirect_uris']);
    for (const gateway of gateways) {
      const stored = (await apiRequest(gateway, 'GET', `/api/apps/${app.id}`, { token })).json().redirectUris;
      expect(applied).toContainEqual(stored);
    }
  });

  /** The app's entries in the store, read past identity (so no read of the log trims them first). */
  const storedLogIds = async (appId: string) =>
    (
      await db
        .collection('request_logs')
        .find({ app: appId }, { projection: { requestId: 1 } })
        .toArray()
    ).map((doc) => doc.requestId as string);

  it('when an app’s requests arrive through both gateways at once, then its owner never sees more than the newest cap, and the store comes back within its bound without anyone reading the log', async () => {
    const token = await registerUser(gateways[0]);
    const app = await createApp(gateways[0], token);
    const page = (gateway: string, requestId: string) =>
      rawRequest(`${gateway}/playground/data/hr/employees?page_size=1`, { headers: { 'x-api-key': app.apiKey, 'x-request-id': requestId } });
    const readLog = (gateway: string) => apiRequest(gateway, 'GET', `/api/apps/${app.id}/logs?page_size=50`, { token });

    // 60 requests at once, with the owner reading the log through both gateways meanwhile.
    const [burst, reads] = await Promise.all([
      atOnce(60, (gateway, i) => page(gateway, `caps-early-${i}`)),
      Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, 150 * i));
          return readLog(gateways[i % 2]!);
        }),
      ),
    ]);
    expect(tally(burst)).toEqual({ 200: 60 });
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.json().total).toBeLessThanOrEqual(LOG_CAP);
      expect(read.json().entries.length).toBeLessThanOrEqual(LOG_CAP);
    }

    // Then the newest: finished after every earlier one (a clock tick apart), so they are the ones to keep.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newest = Array.from({ length: LOG_CAP }, (_, i) => `caps-late-${i}`);
    expect(tally(await atOnce(LOG_CAP, (gateway, i) => page(gateway, newest[i]!)))).toEqual({ 200: LOG_CAP });
    // Both gateways flush within a second and the identity replicas make the trims they owe when the interval ends (5 s).
    // What stays past the cap is what each replica saw arrive after the last trim and too little to trim for
    // (under a quarter of the cap each: docs/state.md), never the newest.
    const bound = LOG_CAP + 2 * (Math.ceil(LOG_CAP / 4) - 1);
    await eventually(
      () => storedLogIds(app.id),
      (ids) => ids.length <= bound && newest.every((id) => ids.includes(id)),
      30_000,
      250,
    );

    const log = (await readLog(gateways[1])).json();
    expect(log.total).toBe(LOG_CAP);
    expect(log.entries.map((entry: { requestId: string }) => entry.requestId).sort()).toEqual([...newest].sort());
  });

  it('when an app’s requests are counted by two gateways and two identity replicas, then its usage adds up to exactly the requests made, in at most one row part per identity process', async () => {
    const token = await registerUser(gateways[0]);
    const app = await createApp(gateways[1], token);
    const answers = await atOnce(60, (gateway) => rawRequest(`${gateway}/playground/data/hr/employees?page_size=1`, { headers: { 'x-api-key': app.apiKey } }));
    expect(tally(answers)).toEqual({ 200: 60 });

    const parts = () => db.collection<{ requests?: unknown; day?: string; authStyle?: string; routeFamily?: string }>('usage').find({ app: app.id }).toArray();
    const sum = (docs: { requests?: unknown }[]) => docs.reduce((total, doc) => total + Number(doc.requests), 0);
    await eventually(parts, (docs) => sum(docs) >= 60, 30_000, 250);
    // Two more flush intervals with nothing sent: a count delivered twice would show now.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const docs = await parts();
    expect(sum(docs)).toBe(60);
    const byRow = new Map<string, number>();
    for (const doc of docs) {
      const row = `${doc.day}|${doc.authStyle}|${doc.routeFamily}`;
      byRow.set(row, (byRow.get(row) ?? 0) + 1);
    }
    // One row per day, style and family; each kept in a part per identity process that counted it (two here).
    for (const count of byRow.values()) expect(count).toBeLessThanOrEqual(2);
  });

  describe('slow requests in flight per address', () => {
    const held: http.ClientRequest[] = [];
    afterAll(() => {
      for (const request of held) request.destroy();
    });

    /** A 60 s wait from one client address, kept open until the test ends it; resolves with its status if it is answered. */
    const wait = (gateway: string, address: string) => {
      let request!: http.ClientRequest;
      const answered = new Promise<number>((resolve) => {
        request = http.get(`${gateway}/playground/timeout?delay=60000`, { localAddress: address }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        request.on('error', () => undefined);
      });
      held.push(request);
      return { request, answered };
    };

    it('when one address sends ten slow requests at once through both gateways, then exactly the cap of 3 are held and the other 7 refused with 429 too_many_slow_requests; an ended one frees its slot', async () => {
      const address = '127.0.0.41';
      const waits = Array.from({ length: 10 }, (_, i) => wait(gateways[i % 2]!, address));
      const refusals: number[] = [];
      for (const w of waits) void w.answered.then((status) => refusals.push(status));
      // A refusal comes at once; a held wait answers only after 60 s, long after this.
      await eventually(
        async () => refusals.length,
        (count) => count >= 10 - SLOW_CAP,
        30_000,
        50,
      );
      expect(refusals).toEqual(Array(10 - SLOW_CAP).fill(429));

      // The three held are the cap on both gateways: one more slow request is refused on each.
      for (const gateway of gateways) {
        const refused = await rawRequest(`${gateway}/playground/timeout?delay=10`, { localAddress: address });
        expect(refused.status).toBe(429);
        expect(refused.json().error.code).toBe('too_many_slow_requests');
      }
      expect(refusals).toHaveLength(10 - SLOW_CAP);

      // One held client gives up: its slot comes free for the next slow request, through either gateway.
      const settled = await Promise.all(waits.map((w) => Promise.race([w.answered, Promise.resolve(-1)])));
      waits[settled.indexOf(-1)]!.request.destroy();
      const { value: accepted } = await eventually(
        () => rawRequest(`${gateways[1]}/playground/timeout?delay=10`, { localAddress: address }),
        (res) => res.status === 200,
        20_000,
      );
      expect(accepted.headers.ratelimit).toBe('"address-slow";r=0');
    });
  });
});

/*
 * No slow route takes an app's credential yet, so the per-app cap cannot be
 * reached through HTTP; the counter both gateways share is raced directly,
 * two counters on one Redis as two gateways hold them.
 */
describe('the slow-request counter two gateways share in Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(requireStoreUrls().redisUrl);
  });
  afterAll(() => redis.disconnect());

  it('when 40 slow requests of one app take slots at once through two gateways against a cap of 10, then exactly 10 hold one; releasing 4 lets exactly 4 more in', async () => {
    const prefix = `test:caps:${randomBytes(6).toString('hex')}:`;
    const other = new Redis(requireStoreUrls().redisUrl);
    const counters = [new RedisSlotCounter(redis, 120_000, prefix), new RedisSlotCounter(other, 120_000, prefix)];
    const claims = [{ key: 'app:app_caps', cap: 10 }];
    const hold = (from: number, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          counters[i % 2]!.hold(claims, `slot-${from + i}`, Date.now()).then((held) => (held.held ? `slot-${from + i}` : undefined)),
        ),
      );
    const first = (await hold(0, 40)).filter((id) => id !== undefined);
    expect(first).toHaveLength(10);
    first.slice(0, 4).forEach((id, i) => counters[i % 2]!.release(claims, id));
    await eventually(
      () => redis.zcard(`${prefix}app:app_caps`),
      (count) => count === 6,
      5_000,
    );
    expect((await hold(100, 40)).filter((id) => id !== undefined)).toHaveLength(4);
    await expect(redis.zcard(`${prefix}app:app_caps`)).resolves.toBe(10);
    other.disconnect();
  });
});
