import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { health } from '@sandbox/contracts';
import { promiseClient } from '@sandbox/runtime';
import { apiRequest, eventually, rawRequest, startSystem, type RawResponse, type RunningSystem } from '@sandbox/testing';
import { ownFerretDb, ownRedis, type OwnedStore } from '../../../../test/support/owned-store';

jest.setTimeout(180_000);

const { SERVING, NOT_SERVING } = health.HealthCheckResponse_ServingStatus;

/*
 * /health/ready on REPLICAS=2 with real stores of the test's own (so it can
 * stop them), as issue #32 asks: under a heavy load it keeps answering 200 at
 * once, every part with the age of its verdict; a process or a store that is
 * really gone turns it 503 naming the part within the documented bound
 * (docs/deployment.md, Health), and it is 200 again once the part is back.
 *
 * The bounds asserted are the documented ones times about five, for a
 * two-core machine other suites keep busy (a load average of 25 was seen
 * here); the figures are printed. The bounds themselves are pinned to the
 * millisecond on fake timers (readiness.test.ts, dependency-monitor.test.ts).
 */
const BOUND = {
  /** A stopped process: its connection breaks, a refused check, another 250 ms later (documented: 1.5 s; measured alone: 0.4 s). */
  processStoppedMs: 10_000,
  /** A store that refuses: the service's next check, pushed to the gateway at once (documented: 1.5 s, MongoDB 2 s; measured: 1.2 to 1.3 s). */
  storeStoppedMs: 10_000,
  /** A process that stops answering: two checks without an answer (documented: 4 s; measured: 4.9 s at a load average of 25). */
  processHungMs: 20_000,
  /** Back: the next check after the return (documented: 1 s); a restarted process first has to start. */
  backMs: 30_000,
};

interface ReadyAnswer {
  sentAt: number;
  ms: number;
  status: number;
  body: {
    status: string;
    down?: string[];
    components: Record<string, { status: string; via?: string; reason?: string; checkedAt: string; ageMs: number; stale?: true }>;
  };
}

describe('/health/ready stays honest: busy is not down, down is named at once (REPLICAS=2, real stores)', () => {
  let redis: OwnedStore;
  let mongo: OwnedStore;
  let system: RunningSystem;
  let gateways: string[];

  beforeAll(async () => {
    [redis, mongo] = await Promise.all([ownRedis(), ownFerretDb()]);
    system = await startSystem({ REPLICAS: '2', MONGO_URL: `${mongo.url}/health_honest`, REDIS_URL: redis.url }, 120_000);
    gateways = /Training Sandbox is ready at ([^(]+)\(/.exec(system.output())![1].trim().split(' ');
  });
  afterAll(async () => {
    await system?.stop();
    await Promise.all([redis?.remove(), mongo?.remove()]);
  });

  const ready = async (gateway = gateways[0]!): Promise<ReadyAnswer> => {
    const sentAt = Date.now();
    const res = await rawRequest(`${gateway}/health/ready`);
    return { sentAt, ms: Date.now() - sentAt, status: res.status, body: res.json() };
  };
  /** Polls until readiness names `part` down (or, with `up`, answers 200); resolves with the answer and the time since `from`. */
  const until = async (accept: (answer: ReadyAnswer) => boolean, from: number, timeoutMs: number) => {
    const { value } = await eventually(() => ready(), accept, timeoutMs, 50);
    return { answer: value, afterMs: value.sentAt + value.ms - from };
  };
  const names = (part: string) => (answer: ReadyAnswer) => answer.status === 503 && (answer.body.down ?? []).includes(part);
  const isReady = (answer: ReadyAnswer) => answer.status === 200;
  /** Each identity replica's gRPC address, from its own 'serving' line (only identity watches both stores). */
  const identityAddresses = () =>
    system
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"serving"') && line.includes('"dependencies":["mongodb","redis"]'))
      .map((line) => `127.0.0.1:${(JSON.parse(line) as { port: number }).port}`);
  const report = (what: string, figures: Record<string, unknown>) => process.stderr.write(`health-honest: ${what} ${JSON.stringify(figures)}\n`);

  it('when everything serves, then 200, every service with its replicas and every store with what reaches it, each verdict with its age', async () => {
    for (const gateway of gateways) {
      const { status, body } = await ready(gateway);
      expect(status).toBe(200);
      expect(Object.keys(body.components).sort()).toEqual(['data', 'identity', 'mongodb', 'oauth', 'playground', 'redis']);
      for (const service of ['identity', 'oauth', 'data', 'playground'])
        expect(body.components[service]).toMatchObject({ status: 'up', replicas: { up: 2, of: 2 } });
      expect(body.components.mongodb).toMatchObject({ status: 'up', via: 'identity' });
      // Identity's sign-in counts are in Redis as well as oauth's tokens and the gateway's change feed.
      expect(body.components.redis).toMatchObject({ status: 'up', via: 'identity, oauth, gateway' });
      for (const component of Object.values(body.components)) {
        expect(Number.isNaN(Date.parse(component.checkedAt))).toBe(false);
        expect(component.ageMs).toBeGreaterThanOrEqual(0);
        expect(component.stale).toBeUndefined();
      }
    }
  });

  it('identity answers grpc.health.v1 for its Redis as for its MongoDB, on every replica', async () => {
    const addresses = identityAddresses();
    expect(addresses).toHaveLength(2);
    for (const address of addresses) {
      const client = promiseClient(health.HealthClient, health.HealthService, address!, 'identity', 5000, system.tlsAs('gateway'));
      try {
        expect((await client.check({ service: 'redis' })).status).toBe(SERVING);
        expect((await client.check({ service: 'mongodb' })).status).toBe(SERVING);
      } finally {
        client.close();
      }
    }
  });

  it('when the machine is busy (CPU burners and many requests through both gateways), then every answer is 200, as fast as the gateway answers anything, with the ages of its verdicts', async () => {
    const { token } = (
      await apiRequest(gateways[0]!, 'POST', '/api/auth/register', {
        body: { email: `busy-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery' },
      })
    ).json();
    const app = (await apiRequest(gateways[0]!, 'POST', '/api/apps', { token, body: { name: 'busy' } })).json();
    const burners: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    const stopAt = Date.now() + 12_000;
    const loadStatuses: Record<string, number> = {};
    const requests = [
      (g: string) => rawRequest(`${g}/playground/data/hr/employees?page=1&page_size=50`, { headers: { 'x-api-key': app.apiKey } }),
      (g: string) => apiRequest(g, 'GET', '/api/apps', { token }),
      (g: string) =>
        rawRequest(`${g}/playground/echo?load=1`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ pad: 'x'.repeat(20_000) }),
        }),
      // A wrong password: a full password hash in identity, and a count in its Redis.
      (g: string) => apiRequest(g, 'POST', '/api/auth/login', { body: { email: `nobody-${randomBytes(3).toString('hex')}@example.com`, password: 'wrong' } }),
    ];
    const worker = async (i: number) => {
      for (let n = i; Date.now() < stopAt; n++) {
        const answer: RawResponse | undefined = await requests[n % requests.length]!(gateways[n % 2]!).catch(() => undefined);
        const key = String(answer?.status ?? 'error');
        loadStatuses[key] = (loadStatuses[key] ?? 0) + 1;
      }
    };
    const probes: ReadyAnswer[] = [];
    const liveness: number[] = [];
    const probe = async (gateway: string) => {
      while (Date.now() < stopAt) {
        probes.push(await ready(gateway));
        // The same gateway's cheapest answer, just after: what "at once" can mean on a machine this busy.
        const sentAt = Date.now();
        await rawRequest(`${gateway}/health`);
        liveness.push(Date.now() - sentAt);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      await Promise.all([...Array.from({ length: 48 }, (_, i) => worker(i)), ...gateways.map(probe)]);
    } finally {
      for (const burner of burners) burner.kill('SIGKILL');
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const ms = probes.map((p) => p.ms).sort((a, b) => a - b);
    const ages = probes.flatMap((p) => Object.entries(p.body.components).map(([name, c]) => ({ name, ageMs: c.ageMs, stale: c.stale ?? false })));
    const oldest = ages.reduce((a, b) => (b.ageMs > a.ageMs ? b : a));
    report('under load', {
      probes: probes.length,
      load: loadStatuses,
      readyMs: { p50: median(ms), p99: ms[Math.floor(ms.length * 0.99)], max: ms.at(-1) },
      healthMs: { p50: median(liveness), max: Math.max(...liveness) },
      oldestVerdict: oldest,
      staleVerdicts: ages.filter((a) => a.stale).length,
    });

    expect(Object.values(loadStatuses).reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
    expect(probes.length).toBeGreaterThan(20);
    // Not one readiness answer said a part was down (a stale verdict is still the last one heard), and every one said how old each verdict was.
    expect(probes.filter((p) => p.status !== 200).map((p) => p.body)).toEqual([]);
    for (const p of probes) for (const component of Object.values(p.body.components)) expect(typeof component.ageMs).toBe('number');
    // It waits on nothing: about as fast as the gateway's liveness answer, whatever the backends' queues.
    expect(median(ms)).toBeLessThanOrEqual(3 * median(liveness) + 100);
  });

  it('when both data replicas are killed, then 503 naming data within the bound; one started again, 200', async () => {
    const killedAt = Date.now();
    for (const pid of [system.pids.data, system.pids['data#2']]) process.kill(pid!, 'SIGKILL');
    const down = await until(names('data'), killedAt, BOUND.processStoppedMs * 2);
    expect(down.answer.body.components.data).toMatchObject({ status: 'down', reason: 'unreachable', replicas: { up: 0, of: 2 } });
    expect(down.answer.body.down).toEqual(['data']);

    const startedAt = Date.now();
    await system.startService('data');
    const back = await until(isReady, startedAt, BOUND.backMs * 2);
    expect(back.answer.body.components.data).toMatchObject({ status: 'up', replicas: { up: 1, of: 2 } });
    report('data killed', { namedAfterMs: down.afterMs, backAfterStartMs: back.afterMs });
    expect(down.afterMs).toBeLessThan(BOUND.processStoppedMs);
  });

  it('when both playground replicas stop answering (SIGSTOP), then 503 naming playground: no answer in time; continued, 200', async () => {
    const pids = [system.pids.playground!, system.pids['playground#2']!];
    const stoppedAt = Date.now();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    let down;
    try {
      down = await until(names('playground'), stoppedAt, BOUND.processHungMs * 2);
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    expect(down.answer.body.components.playground).toMatchObject({ status: 'down', reason: 'no answer in time' });
    const continuedAt = Date.now();
    const back = await until(isReady, continuedAt, BOUND.backMs * 2);
    report('playground hung', { namedAfterMs: down.afterMs, backAfterMs: back.afterMs });
    expect(down.afterMs).toBeLessThan(BOUND.processHungMs);
    expect(back.afterMs).toBeLessThan(BOUND.backMs);
  });

  it('when Redis is killed, then 503 naming redis, identity’s own health saying so too; back, 200', async () => {
    const killedAt = Date.now();
    await redis.kill();
    let down;
    try {
      down = await until(names('redis'), killedAt, BOUND.storeStoppedMs * 2);
      expect(down.answer.body.components.redis).toMatchObject({ status: 'down', via: 'identity, oauth, gateway' });
      // The services stay up: a store outage names the store, not the services that use it.
      expect(down.answer.body.components.identity).toMatchObject({ status: 'up' });
      const [address] = identityAddresses();
      const client = promiseClient(health.HealthClient, health.HealthService, address!, 'identity', 5000, system.tlsAs('gateway'));
      try {
        const said = await eventually(
          () => client.check({ service: 'redis' }),
          (answer) => answer.status === NOT_SERVING,
          BOUND.storeStoppedMs * 2,
        );
        expect(said.value.status).toBe(NOT_SERVING);
      } finally {
        client.close();
      }
    } finally {
      await redis.start();
    }
    const returnedAt = Date.now();
    const back = await until(isReady, returnedAt, BOUND.backMs * 2);
    report('redis killed', { namedAfterMs: down.afterMs, backAfterMs: back.afterMs });
    expect(down.afterMs).toBeLessThan(BOUND.storeStoppedMs);
    expect(back.afterMs).toBeLessThan(BOUND.backMs);
  });

  it('when MongoDB (FerretDB) is killed, then 503 naming mongodb via identity; back, 200', async () => {
    const killedAt = Date.now();
    await mongo.kill();
    let down;
    try {
      down = await until(names('mongodb'), killedAt, BOUND.storeStoppedMs * 2);
      expect(down.answer.body.components.mongodb).toMatchObject({ status: 'down', via: 'identity', reason: 'not serving' });
      expect(down.answer.body.down).toEqual(['mongodb']);
    } finally {
      await mongo.start();
    }
    const returnedAt = Date.now();
    const back = await until(isReady, returnedAt, BOUND.backMs * 2);
    report('mongodb killed', { namedAfterMs: down.afterMs, backAfterMs: back.afterMs });
    expect(down.afterMs).toBeLessThan(BOUND.storeStoppedMs);
    expect(back.afterMs).toBeLessThan(BOUND.backMs);
  });
});
