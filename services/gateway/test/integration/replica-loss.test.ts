import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { health } from '@sandbox/contracts';
import { promiseClient } from '@sandbox/runtime';
import { eventually, freePort, rawRequest, startSystem, type RawResponse, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..', '..', '..');

interface Outcome {
  startedAt: number;
  endedAt: number;
  status: number;
  code?: string;
}

/*
 * Two playground replicas behind the gateway (an address list, as a headless
 * Service resolves to), a load of echoes and delayed answers, and one replica
 * killed with SIGKILL in the middle: only the calls that replica had in
 * flight fail, each at once with 503 naming the service, and everything sent
 * after the gateway saw it go is answered by the survivor. Runs on both
 * transports (the integration and integration-unary projects).
 */
describe('a service replica killed under load', () => {
  let system: RunningSystem;
  let second: ChildProcess;
  /** Each replica's metrics, to see that both answer the gateway before one is killed. */
  let echoesServed: () => Promise<[number, number]>;

  beforeAll(async () => {
    const [first, other, otherMetrics] = [await freePort(), await freePort(), await freePort()];
    system = await startSystem({ PLAYGROUND_GRPC_PORT: String(first), PLAYGROUND_GRPC_ADDR: `ipv4:127.0.0.1:${first},127.0.0.1:${other}` }, { metrics: true });
    second = spawn(process.execPath, [join(ROOT, 'services/playground/dist/main.js')], {
      env: { ...system.env, PLAYGROUND_GRPC_PORT: String(other), PLAYGROUND_METRICS_PORT: String(otherMetrics) },
      stdio: 'ignore',
    });
    const served = async (url: string) => {
      const text = (await rawRequest(url)).body;
      return [...text.matchAll(/^sandbox_grpc_server_calls_total\{[^}]*method="Echo"[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    };
    echoesServed = async () => [await served(system.metricsUrls!.playground), await served(`http://127.0.0.1:${otherMetrics}/metrics`)];
    const probe = promiseClient(health.HealthClient, health.HealthService, `127.0.0.1:${other}`, 'playground', 1000, system.tlsAs('gateway'));
    try {
      await eventually(
        () => probe.check({ service: '' }).catch(() => undefined),
        (answer) => answer?.status === health.HealthCheckResponse_ServingStatus.SERVING,
        20_000,
      );
    } finally {
      probe.close();
    }
  });
  afterAll(async () => {
    second?.kill('SIGKILL');
    await system?.stop();
  });

  const request = async (path: string): Promise<Outcome> => {
    const startedAt = Date.now();
    let res: RawResponse;
    try {
      res = await rawRequest(`${system.baseUrl}${path}`);
    } catch (error) {
      // A reset or a hang-up is a failure of its own kind: the test wants none.
      return { startedAt, endedAt: Date.now(), status: 0, code: String(error) };
    }
    const code = res.status >= 400 ? res.json().error?.code : undefined;
    return { startedAt, endedAt: Date.now(), status: res.status, code };
  };

  it('fails only the dead replica’s calls in flight, each 503 at once; the survivor takes the rest', async () => {
    // Both replicas answer the gateway before the load starts: the gateway
    // finds the second one when its connection attempts (backing off up to
    // 1 s) reach it, so warm up until each has served echoes.
    await eventually(
      async () => {
        expect((await request('/playground/echo?warm=1')).status).toBe(200);
        return echoesServed();
      },
      ([a, b]) => a > 0 && b > 0,
      20_000,
    );

    // Twenty slow calls spread over the two replicas, in flight when one dies.
    const DELAY_MS = 4000;
    const slow = Array.from({ length: 20 }, () => request(`/playground/response?delay=${DELAY_MS}`));
    // A steady stream of echoes before, during and after the death.
    let running = true;
    const echoes: Outcome[] = [];
    const echoLoop = async () => {
      while (running) echoes.push(await request('/playground/echo?x=1'));
    };
    const loops = Array.from({ length: 4 }, echoLoop);

    await new Promise((resolve) => setTimeout(resolve, 1000));
    const killedAt = Date.now();
    second.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    running = false;
    await Promise.all(loops);
    const slowOutcomes = await Promise.all(slow);

    // Every failure is the dead replica's: 503 service_unavailable, never a 500, a 504 or a reset.
    const failures = [...slowOutcomes, ...echoes].filter((o) => o.status !== 200);
    for (const failure of failures) expect(failure).toMatchObject({ status: 503, code: 'service_unavailable' });

    // The slow calls: some on each replica; those on the dead one failed at once, not at their deadline.
    const slowFailures = slowOutcomes.filter((o) => o.status === 503);
    expect(slowFailures.length).toBeGreaterThan(0);
    expect(slowFailures.length).toBeLessThan(slowOutcomes.length);
    for (const failure of slowFailures) expect(failure.endedAt - killedAt).toBeLessThan(DELAY_MS / 2);
    // The survivor's slow calls finished as asked.
    for (const success of slowOutcomes.filter((o) => o.status === 200)) expect(success.endedAt - success.startedAt).toBeGreaterThanOrEqual(DELAY_MS - 50);

    // Echoes: any failure was in flight when the replica died; once the gateway saw it go, none fails.
    for (const failure of echoes.filter((o) => o.status !== 200)) expect(failure.startedAt).toBeLessThanOrEqual(killedAt + 250);
    const after = echoes.filter((o) => o.startedAt > killedAt + 250);
    expect(after.length).toBeGreaterThan(10);
    expect(after.every((o) => o.status === 200)).toBe(true);
  });
});
