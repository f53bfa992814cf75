import { createLogger, DependencyMonitor } from '@sandbox/runtime';

/*
 * How stale health may be is a property of the monitor's interval and ping
 * timeout, so it is pinned here on fake timers, to the millisecond; the
 * integration test over real gRPC only checks that changes arrive at all.
 */
describe('DependencyMonitor', () => {
  const logger = createLogger('test', 'silent');
  let monitor: DependencyMonitor | undefined;
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    monitor?.stop();
    jest.useRealTimers();
  });

  it('when a dependency goes down, then the change is reported at the next check, one interval later', async () => {
    let up = true;
    const changes: Array<[string, boolean]> = [];
    monitor = new DependencyMonitor([{ name: 'db', ping: async () => (up ? undefined : Promise.reject(new Error('down'))) }], (name, isUp) => changes.push([name, isUp]), logger, 1000, 800);
    await monitor.start();
    expect(changes).toEqual([['db', true]]);
    expect(monitor.allUp()).toBe(true);

    up = false;
    await jest.advanceTimersByTimeAsync(999);
    expect(changes).toEqual([['db', true]]);
    await jest.advanceTimersByTimeAsync(1);
    expect(changes).toEqual([['db', true], ['db', false]]);
    expect(monitor.allUp()).toBe(false);

    up = true;
    await jest.advanceTimersByTimeAsync(1000);
    expect(changes).toEqual([['db', true], ['db', false], ['db', true]]);
  });

  it('when a ping never answers, then the dependency counts as down once the ping timeout has passed', async () => {
    let hang = false;
    const changes: Array<[string, boolean]> = [];
    monitor = new DependencyMonitor([{ name: 'db', ping: () => (hang ? new Promise<void>(() => undefined) : Promise.resolve()) }], (name, isUp) => changes.push([name, isUp]), logger, 1000, 800);
    await monitor.start();

    hang = true;
    await jest.advanceTimersByTimeAsync(1000 + 799);
    expect(changes).toEqual([['db', true]]);
    await jest.advanceTimersByTimeAsync(1);
    expect(changes).toEqual([['db', true], ['db', false]]);
  });
});
