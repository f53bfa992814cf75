import { createLogger, DependencyMonitor, isNoAnswer, settlesWithin, SILENT_INTERVALS_TO_DOWN } from '@sandbox/runtime';

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

  it('when a dependency refuses, then the change is reported at the next check, one interval later, and back at the next after it answers', async () => {
    let up = true;
    const changes: Array<[string, boolean]> = [];
    monitor = new DependencyMonitor(
      [{ name: 'db', ping: async () => (up ? undefined : Promise.reject(new Error('connect ECONNREFUSED'))) }],
      (name, isUp) => changes.push([name, isUp]),
      logger,
      1000,
      800,
    );
    await monitor.start();
    expect(changes).toEqual([['db', true]]);
    expect(monitor.allUp()).toBe(true);

    up = false;
    await jest.advanceTimersByTimeAsync(999);
    expect(changes).toEqual([['db', true]]);
    await jest.advanceTimersByTimeAsync(1);
    expect(changes).toEqual([
      ['db', true],
      ['db', false],
    ]);
    expect(monitor.allUp()).toBe(false);
    expect(monitor.states().db).toEqual({ up: false, checkedAt: Date.now(), reason: 'connect ECONNREFUSED' });

    up = true;
    await jest.advanceTimersByTimeAsync(1000);
    expect(changes).toEqual([
      ['db', true],
      ['db', false],
      ['db', true],
    ]);
  });

  it('when one ping is slower than the timeout, then the dependency stays up and its verdict only ages', async () => {
    let delayMs = 0;
    const changes: Array<[string, boolean]> = [];
    monitor = new DependencyMonitor(
      [{ name: 'db', ping: () => new Promise((resolve) => setTimeout(resolve, delayMs)) }],
      (name, isUp) => changes.push([name, isUp]),
      logger,
      1000,
      800,
    );
    const started = monitor.start();
    await jest.advanceTimersByTimeAsync(0);
    await started;
    const answeredAt = monitor.states().db!.checkedAt;

    delayMs = 1500; // one check on a busy machine: answered, but after its timeout
    await jest.advanceTimersByTimeAsync(1000 + 800);
    expect(monitor.states().db).toEqual({ up: true, checkedAt: answeredAt });
    delayMs = 0;
    await jest.advanceTimersByTimeAsync(5000);
    expect(changes).toEqual([['db', true]]);
    expect(monitor.states().db!.checkedAt).toBeGreaterThan(answeredAt + 1000);
  });

  it('when every ping answers after its timeout (a saturated store), then the dependency stays up: late answers end the silence', async () => {
    const changes: Array<[string, boolean]> = [];
    let delayMs = 0;
    monitor = new DependencyMonitor(
      [{ name: 'db', ping: () => new Promise((resolve) => setTimeout(resolve, delayMs)) }],
      (name, isUp) => changes.push([name, isUp]),
      logger,
      1000,
      800,
    );
    const started = monitor.start();
    await jest.advanceTimersByTimeAsync(0);
    await started;
    delayMs = 2500;
    await jest.advanceTimersByTimeAsync(30_000);
    expect(changes).toEqual([['db', true]]);
  });

  it(`when pings go unanswered, then the dependency is down at the first unanswered check after ${SILENT_INTERVALS_TO_DOWN} s of silence, and up at the first answer`, async () => {
    let hang = false;
    const changes: Array<[string, boolean]> = [];
    monitor = new DependencyMonitor(
      [{ name: 'db', ping: () => (hang ? new Promise<void>(() => undefined) : Promise.resolve()) }],
      (name, isUp) => changes.push([name, isUp]),
      logger,
      1000,
      800,
    );
    await monitor.start();

    hang = true;
    // Last answer at 0; the check at 1000 ms asks, those at 2000 to 4000 wait for the same ping, the one at 5000 gives it up
    // and asks again: unanswered at 5800 ms (and one turn of I/O, a millisecond on fake timers), after 5 s of silence.
    await jest.advanceTimersByTimeAsync(5000 + 799);
    expect(changes).toEqual([['db', true]]);
    await jest.advanceTimersByTimeAsync(2);
    expect(changes).toEqual([
      ['db', true],
      ['db', false],
    ]);
    expect(monitor.states().db!.reason).toMatch(/^no answer within 800 ms; nothing for 58\d\d ms$/);

    hang = false;
    await jest.advanceTimersByTimeAsync(1000);
    expect(changes).toEqual([
      ['db', true],
      ['db', false],
      ['db', true],
    ]);
  });

  it('when the Redis client times a command out, then that counts as silence, not as a refusal', async () => {
    const changes: Array<[string, boolean]> = [];
    let timingOut = false;
    monitor = new DependencyMonitor(
      [{ name: 'redis', ping: async () => (timingOut ? Promise.reject(new Error('Command timed out')) : undefined) }],
      (name, isUp) => changes.push([name, isUp]),
      logger,
      1000,
      800,
    );
    await monitor.start();
    timingOut = true;
    await jest.advanceTimersByTimeAsync(4999);
    expect(changes).toEqual([['redis', true]]);
    await jest.advanceTimersByTimeAsync(1);
    expect(changes).toEqual([
      ['redis', true],
      ['redis', false],
    ]);
  });

  it('when a dependency never answered, then it is down after the first check', async () => {
    const changes: Array<[string, boolean]> = [];
    monitor = new DependencyMonitor(
      [{ name: 'db', ping: () => new Promise<void>(() => undefined) }],
      (name, isUp) => changes.push([name, isUp]),
      logger,
      1000,
      800,
    );
    const started = monitor.start();
    await jest.advanceTimersByTimeAsync(800 + 1);
    await started;
    expect(changes).toEqual([['db', false]]);
  });
});

describe('what counts as no answer', () => {
  it.each([
    ['the Redis client’s command timeout', Object.assign(new Error('Command timed out'), { name: 'Error' }), true],
    ['a MongoDB socket timeout', Object.assign(new Error('connection timed out'), { name: 'MongoNetworkTimeoutError' }), true],
    [
      'no MongoDB server to select (it is gone)',
      Object.assign(new Error('Server selection timed out after 500 ms'), { name: 'MongoServerSelectionError' }),
      false,
    ],
    ['a refused connection', new Error('connect ECONNREFUSED 127.0.0.1:6379'), false],
    ['a closed Redis connection', new Error("Stream isn't writeable and enableOfflineQueue options is false"), false],
  ])('%s', (_what, error, expected) => {
    expect(isNoAnswer(error)).toBe(expected);
  });
});

describe('settlesWithin', () => {
  it('when nothing answers, then false once the time is up', async () => {
    expect(await settlesWithin(new Promise(() => undefined), 20)).toBe(false);
  });

  it('when the work settles first, then true, rejected or not', async () => {
    expect(await settlesWithin(Promise.reject(new Error('refused')), 20)).toBe(true);
  });
});
