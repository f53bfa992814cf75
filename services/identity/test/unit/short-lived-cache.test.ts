import { ShortLivedCache } from '../../src/domain/short-lived-cache';

describe('ShortLivedCache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000;
  });

  it('when asked again within the TTL, then the first answer is reused; after it, the value is loaded again', async () => {
    const cache = new ShortLivedCache<number>(500, 100, clock);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('k', load)).toBe(1);
    now += 499;
    expect(await cache.get('k', load)).toBe(1);
    now += 1;
    expect(await cache.get('k', load)).toBe(2);
  });

  it('when several ask at once, then one load serves them all', async () => {
    const cache = new ShortLivedCache<number>(500, 100, clock);
    let loads = 0;
    const load = () => new Promise<number>((resolve) => setTimeout(() => resolve(++loads), 5));
    const answers = await Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)]);
    expect(answers).toEqual([1, 1, 1]);
    expect(loads).toBe(1);
  });

  it('when cleared while a load is running, then that load does not put its answer back', async () => {
    const cache = new ShortLivedCache<string>(500, 100, clock);
    let release!: (value: string) => void;
    const slow = cache.get('k', () => new Promise<string>((resolve) => (release = resolve)));
    cache.clear();
    release('stale');
    expect(await slow).toBe('stale');
    expect(await cache.get('k', async () => 'fresh')).toBe('fresh');
  });

  it('when cleared, then every entry is forgotten at once', async () => {
    const cache = new ShortLivedCache<string>(500, 100, clock);
    await cache.get('k', async () => 'old');
    cache.clear();
    expect(await cache.get('k', async () => 'new')).toBe('new');
  });

  it('when full, then the oldest entry goes', async () => {
    const cache = new ShortLivedCache<string>(500, 2, clock);
    await cache.get('a', async () => 'a1');
    await cache.get('b', async () => 'b1');
    await cache.get('c', async () => 'c1');
    expect(cache.size).toBe(2);
    expect(await cache.get('a', async () => 'a2')).toBe('a2');
    expect(await cache.get('c', async () => 'c2')).toBe('c1');
  });

  it('when the TTL is zero, then nothing is cached', async () => {
    const cache = new ShortLivedCache<number>(0, 100, clock);
    let loads = 0;
    await cache.get('k', async () => ++loads);
    await cache.get('k', async () => ++loads);
    expect(loads).toBe(2);
  });

  it('when read, then it says whether the answer was remembered or loaded (by this call or one running when it came)', async () => {
    const cache = new ShortLivedCache<string>(500, 100, clock);
    let release!: (value: string) => void;
    const first = cache.read('k', () => new Promise<string>((resolve) => (release = resolve)));
    const joined = cache.read('k', async () => 'never');
    release('v');
    expect(await Promise.all([first, joined])).toEqual([
      { value: 'v', remembered: false },
      { value: 'v', remembered: false },
    ]);
    expect(await cache.read('k', async () => 'never')).toEqual({ value: 'v', remembered: true });
  });

  it('when reloaded, then the remembered answer is replaced by a fresh load, which concurrent reloads share', async () => {
    const cache = new ShortLivedCache<string>(500, 100, clock);
    await cache.get('k', async () => 'old');
    let loads = 0;
    const load = async () => `new${++loads}`;
    expect(await Promise.all([cache.reload('k', load), cache.reload('k', load)])).toEqual(['new1', 'new1']);
    expect(await cache.read('k', load)).toEqual({ value: 'new1', remembered: true });
  });

  it('when cleared while a reload is running, then a later reload does not share it', async () => {
    const cache = new ShortLivedCache<string>(500, 100, clock);
    let release!: (value: string) => void;
    const stale = cache.reload('k', () => new Promise<string>((resolve) => (release = resolve)));
    cache.clear();
    expect(await cache.reload('k', async () => 'after the change')).toBe('after the change');
    release('before the change');
    expect(await stale).toBe('before the change');
    expect(await cache.get('k', async () => 'never')).toBe('after the change');
  });

  it('when a load fails, then the failure is not cached', async () => {
    const cache = new ShortLivedCache<string>(500, 100, clock);
    await expect(cache.get('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 'up')).toBe('up');
  });
});
