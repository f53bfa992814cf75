import { TtlCache } from '../../src/caches/ttl-cache';

describe('TtlCache', () => {
  it('when the same key is asked twice within the TTL, then the loader runs once', async () => {
    const cache = new TtlCache<number>(1000);
    let calls = 0;
    const load = async () => ++calls;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    expect(calls).toBe(1);
  });

  it('when a remembered answer has arrived, then a hit returns it directly, not a promise', async () => {
    const cache = new TtlCache<number>(1000);
    expect(cache.get('a', async () => 1)).toBeInstanceOf(Promise);
    await new Promise((r) => setImmediate(r));
    expect(cache.get('a', async () => 2)).toBe(1);
  });

  it('when the TTL has passed, then the loader runs again; until then it does not', async () => {
    let now = 1_000_000;
    // CREDENTIAL_CACHE_MS at its maximum: with identity's own 500 ms, a rotation is seen within a second.
    const cache = new TtlCache<number>(500, 10, () => now);
    let calls = 0;
    await cache.get('a', async () => ++calls);
    now += 499;
    expect(await cache.get('a', async () => ++calls)).toBe(1);
    now += 1;
    expect(await cache.get('a', async () => ++calls)).toBe(2);
  });

  it('when a load fails, then it is not remembered', async () => {
    const cache = new TtlCache<number>(1000);
    await expect(cache.get('a', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await new Promise((r) => setImmediate(r));
    expect(await cache.get('a', async () => 7)).toBe(7);
  });

  it('when full, then it stays within its bound', async () => {
    const cache = new TtlCache<number>(10_000, 3);
    for (let i = 0; i < 10; i++) await cache.get(String(i), async () => i);
    expect((cache as unknown as { entries: Map<string, unknown> }).entries.size).toBeLessThanOrEqual(3);
    expect(await cache.get('9', async () => -1)).toBe(9);
  });

  it('when an answer is one not to keep (a refusal, for the verdicts), then it is asked for again next time; concurrent lookups still share it', async () => {
    const cache = new TtlCache<{ ok: boolean }>(1000, 10, Date.now, (verdict) => verdict.ok);
    let calls = 0;
    const refuse = async () => (calls++, { ok: false });
    expect(await Promise.all([cache.get('a', refuse), cache.get('a', refuse)])).toEqual([{ ok: false }, { ok: false }]);
    expect(calls).toBe(1);
    await cache.get('a', refuse);
    expect(calls).toBe(2);
  });

  it('when cleared, then every answer is forgotten at once, and so is a lookup under way (later callers do not share it)', async () => {
    const cache = new TtlCache<string>(1000);
    await cache.get('a', async () => 'old');
    let release!: (value: string) => void;
    const underWay = cache.get('b', () => new Promise<string>((resolve) => (release = resolve)));
    cache.clear();
    expect(await cache.get('a', async () => 'new')).toBe('new');
    expect(await cache.get('b', async () => 'after')).toBe('after');
    release('before');
    expect(await underWay).toBe('before');
    await new Promise((r) => setImmediate(r));
    expect(await cache.get('b', async () => 'never')).toBe('after');
  });

  it('when the TTL is zero, then nothing is cached', async () => {
    const cache = new TtlCache<number>(0);
    let calls = 0;
    await cache.get('a', async () => ++calls);
    await cache.get('a', async () => ++calls);
    expect(calls).toBe(2);
  });
});
