import { apiRequest, eventually, rawRequest, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

/*
 * Graceful everywhere (issue #21): on SIGTERM a process stops taking new
 * work, says it is not serving, lets what is in flight finish within its
 * grace, then exits. Shown with a 5 s wait in flight (the chart's grace of
 * 65 s covers the 60 s timeout route the same way; deploy tests check that
 * every grace period fits the pod's).
 */
describe('a process stopped with SIGTERM', () => {
  let system: RunningSystem;

  beforeEach(async () => {
    system = await startSystem({ SHUTDOWN_GRACE_MS: '20000' });
  });
  afterEach(async () => system?.stop());

  it('when the playground stops with a wait in flight, the wait is answered in full, while new work is refused and readiness names it', async () => {
    const inFlight = apiRequest(system.baseUrl, 'GET', '/playground/timeout?delay=5000');
    // 1.5 s for the call to reach the playground over loopback: nothing measures its arrival, and a margin
    // a thousand times the usual hop holds on a busy machine; a late arrival would fail as a 503 below.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stopped = system.stopService('playground');
    const draining = await eventually(
      async () => (await apiRequest(system.baseUrl, 'GET', '/health/ready')).json(),
      (body) => JSON.stringify(body).includes('playground'),
      5_000,
    );
    expect(JSON.stringify(draining.value)).toMatch(/playground/);
    const refused = await apiRequest(system.baseUrl, 'GET', '/playground/echo?x=1');
    expect({ status: refused.status, code: refused.json().error?.code }).toEqual({ status: 503, code: 'service_unavailable' });
    const answered = await inFlight;
    expect({ status: answered.status, delayed: answered.json().delayAppliedMs }).toEqual({ status: 200, delayed: 5000 });
    await stopped;
  });

  it('when the gateway stops with a request in flight, the request is answered and closes its connection, and the port stops accepting', async () => {
    const inFlight = rawRequest(`${system.baseUrl}/playground/timeout?delay=5000`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stopped = system.stopService('gateway');
    const answered = await inFlight;
    expect({ status: answered.status, connection: answered.headers.connection }).toEqual({ status: 200, connection: 'close' });
    await stopped;
    await expect(rawRequest(`${system.baseUrl}/health/live`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
