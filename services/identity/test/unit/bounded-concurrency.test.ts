import { BoundedConcurrency } from '../../src/domain/bounded-concurrency';

/** A task that finishes when the test says so. */
function controllable<T>(value: T) {
  let finish!: () => void;
  const started = { yes: false };
  const task = () => {
    started.yes = true;
    return new Promise<T>((resolve) => (finish = () => resolve(value)));
  };
  return { task, started, finish: () => finish() };
}
const busy = () => new Error('busy');
const tick = () => new Promise((r) => setImmediate(r));

describe('BoundedConcurrency', () => {
  it('runs up to its concurrency at once, queues up to its bound, refuses the rest at once', async () => {
    const limiter = new BoundedConcurrency(2, 1);
    const [a, b, c] = [controllable('a'), controllable('b'), controllable('c')];
    const runs = [limiter.run(a.task, busy), limiter.run(b.task, busy), limiter.run(c.task, busy)];
    await expect(limiter.run(async () => 'd', busy)).rejects.toThrow('busy');
    await tick();
    expect([a.started.yes, b.started.yes, c.started.yes]).toEqual([true, true, false]);
    expect(limiter.load).toEqual({ running: 2, waiting: 1 });

    a.finish();
    await tick();
    expect(c.started.yes).toBe(true); // the waiting task took the freed turn
    expect(limiter.load).toEqual({ running: 2, waiting: 0 });
    b.finish();
    c.finish();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    expect(limiter.load).toEqual({ running: 0, waiting: 0 });
  });

  it('when a task fails, then its turn is still given back', async () => {
    const limiter = new BoundedConcurrency(1, 0);
    await expect(limiter.run(async () => Promise.reject(new Error('boom')), busy)).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'next', busy)).resolves.toBe('next');
  });
});
