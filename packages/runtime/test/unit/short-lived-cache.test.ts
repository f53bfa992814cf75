import { ShortLivedCache } from '@sandbox/runtime';

/** A load that answers when the test says so. */
function heldLoad<V>() {
  let release!: (value: V) => void;
  let fail!: (error: Error) => void;
  let calls = 0;
  const load = () => {
    calls++;
    return new Promise<V>((resolve, reject) => {
      release = resolve;
      fail = reject;
    });
  };
  return { load, release: (value: V) => release(value), fail: (error: Error) => fail(error), calls: () => calls };
}

/** Lets the cache's own reaction to a settled load run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ShortLivedCache', () => {
  let now: number;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  describe('get', () => {
    it('when asked again within the TTL, then the first answer is reused; at the TTL, the value is loaded again', async () => {
      // 500 ms: CREDENTIAL_CACHE_MS and VERIFICATION_CACHE_MS at their maximum, so a rotation is seen within a second.
      const cache = new ShortLivedCache<number>({ ttlMs: 500, clock });
      let loads = 0;
      const load = async () => ++loads;
      expect(await cache.get('k', load)).toBe(1);
      now += 499;
      expect(await cache.get('k', load)).toBe(1);
      now += 1;
      expect(await cache.get('k', load)).toBe(2);
    });

    it('when several ask at once, then one load serves them all', async () => {
      const cache = new ShortLivedCache<number>({ ttlMs: 500, clock });
      let loads = 0;
      const load = () => new Promise<number>((resolve) => setTimeout(() => resolve(++loads), 5));
      expect(await Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)])).toEqual([1, 1, 1]);
      expect(loads).toBe(1);
    });

    it('when a remembered answer has arrived, then a hit returns it directly, not a promise', async () => {
      const cache = new ShortLivedCache<number>({ ttlMs: 500, clock });
      expect(cache.get('k', async () => 1)).toBeInstanceOf(Promise);
      await settle();
      expect(cache.get('k', async () => 2)).toBe(1);
    });

    it('when a load fails, then every caller sharing it sees the failure, and it is not remembered', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      const held = heldLoad<string>();
      const first = cache.get('k', held.load);
      const second = cache.get('k', held.load);
      held.fail(new Error('down'));
      await expect(first).rejects.toThrow('down');
      await expect(second).rejects.toThrow('down');
      expect(held.calls()).toBe(1);
      await settle();
      expect(await cache.get('k', async () => 'up')).toBe('up');
    });

    it('when an answer is one not to keep (a refusal, for the verdicts), then concurrent lookups share it, and it is asked for again next time', async () => {
      const cache = new ShortLivedCache<{ ok: boolean }>({ ttlMs: 500, clock, keep: (verdict) => verdict.ok });
      let calls = 0;
      const refuse = async () => (calls++, { ok: false });
      expect(await Promise.all([cache.get('k', refuse), cache.get('k', refuse)])).toEqual([{ ok: false }, { ok: false }]);
      expect(calls).toBe(1);
      await settle();
      await cache.get('k', refuse);
      expect(calls).toBe(2);
      expect(cache.size).toBe(0);
    });

    it('when the TTL is zero or less, then nothing is remembered and nothing is shared', async () => {
      for (const ttlMs of [0, -1]) {
        const cache = new ShortLivedCache<number>({ ttlMs, clock });
        let loads = 0;
        await Promise.all([cache.get('k', async () => ++loads), cache.get('k', async () => ++loads)]);
        await cache.get('k', async () => ++loads);
        expect({ ttlMs, loads, size: cache.size }).toEqual({ ttlMs, loads: 3, size: 0 });
      }
    });

    it('when a load outlasts part of the TTL, then its answer lives only for the rest (the lifetime runs from the start of the read)', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      const held = heldLoad<string>();
      const first = cache.get('k', held.load);
      now += 400;
      held.release('read at the start');
      expect(await first).toBe('read at the start');
      await settle();
      now += 99;
      expect(cache.get('k', async () => 'never')).toBe('read at the start');
      now += 1;
      expect(await cache.get('k', async () => 'read again')).toBe('read again');
    });
  });

  describe('clear', () => {
    it('when cleared, then every answer is forgotten at once', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      await cache.get('a', async () => 'old a');
      await cache.get('b', async () => 'old b');
      await settle();
      cache.clear();
      expect(cache.size).toBe(0);
      expect(await cache.get('a', async () => 'new a')).toBe('new a');
      expect(await cache.get('b', async () => 'new b')).toBe('new b');
    });

    it('when cleared while a load is running, then its answer reaches its own callers only: later callers do not share it, and it is not put back', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      const held = heldLoad<string>();
      const underWay = cache.get('k', held.load);
      cache.clear();
      expect(await cache.get('k', async () => 'after the change')).toBe('after the change');
      held.release('before the change');
      expect(await underWay).toBe('before the change');
      await settle();
      expect(await cache.get('k', async () => 'never')).toBe('after the change');
    });

    it('when cleared while a load is running and nobody asks again before it ends, then its answer is still not put back', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      const held = heldLoad<string>();
      const underWay = cache.get('k', held.load);
      cache.clear();
      held.release('stale');
      expect(await underWay).toBe('stale');
      await settle();
      expect(await cache.get('k', async () => 'fresh')).toBe('fresh');
    });
  });

  describe('the bound', () => {
    it('when full of live answers, then the oldest goes, and the size stays at the bound', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, maxEntries: 2, clock });
      await cache.get('a', async () => 'a1');
      await cache.get('b', async () => 'b1');
      await cache.get('c', async () => 'c1');
      await settle();
      expect(cache.size).toBe(2);
      expect(await cache.get('c', async () => 'c2')).toBe('c1');
      expect(await cache.get('b', async () => 'b2')).toBe('b1');
      expect(await cache.get('a', async () => 'a2')).toBe('a2');
    });

    it('when a flood of keys passes through, then it stays within its bound and keeps the newest', async () => {
      const cache = new ShortLivedCache<number>({ ttlMs: 10_000, maxEntries: 3, clock });
      for (let i = 0; i < 10; i++) await cache.get(String(i), async () => i);
      expect(cache.size).toBe(3);
      expect(await cache.get('9', async () => -1)).toBe(9);
    });

    it('when full, then every expired answer goes first, and a live one stays though it is older than the newcomer', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, maxEntries: 3, clock });
      await cache.get('a', async () => 'a1');
      await cache.get('b', async () => 'b1');
      now += 400;
      await cache.get('c', async () => 'c1');
      now += 100; // a and b expire; c has 400 ms left
      await cache.get('d', async () => 'd1');
      await settle();
      expect(cache.size).toBe(2);
      expect(await cache.get('c', async () => 'c2')).toBe('c1');
    });

    it('when an expired key is loaded again, then it counts as the newest insertion', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, maxEntries: 2, clock });
      await cache.get('a', async () => 'a1');
      now += 100;
      await cache.get('b', async () => 'b1');
      now += 400; // a expires, b has 100 ms left
      await cache.get('a', async () => 'a2');
      await cache.get('c', async () => 'c1');
      await settle();
      expect(await cache.get('a', async () => 'a3')).toBe('a2');
      expect(await cache.get('b', async () => 'b2')).toBe('b2');
    });
  });

  describe('confirmed (a caller about to refuse)', () => {
    const accepting = (value: string) => value === 'yes';

    it('when the remembered answer is accepted, then it is used without a load', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      let loads = 0;
      const load = async () => (loads++, 'yes');
      expect(await cache.confirmed('k', load, accepting)).toBe('yes');
      now += 499;
      expect(await cache.confirmed('k', load, accepting)).toBe('yes');
      expect(loads).toBe(1);
      now += 1;
      await cache.confirmed('k', load, accepting);
      expect(loads).toBe(2);
    });

    it('when the remembered answer would be refused (a change a moment ago), then it is loaded again, the fresh answer stands, and it is what is remembered', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      await cache.get('k', async () => 'no');
      await settle();
      let loads = 0;
      expect(await cache.confirmed('k', async () => (loads++, 'yes'), accepting)).toBe('yes');
      await settle();
      expect(cache.get('k', async () => 'never')).toBe('yes');
      expect(loads).toBe(1);
    });

    it('when the fresh load confirms the refusal, then it stands, and the next refusal is confirmed again', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      let loads = 0;
      const load = async () => (loads++, 'no');
      expect(await cache.confirmed('k', load, accepting)).toBe('no');
      expect(loads).toBe(1);
      await settle();
      expect(await cache.confirmed('k', load, accepting)).toBe('no');
      expect(loads).toBe(2);
      await settle();
      expect(await cache.confirmed('k', load, accepting)).toBe('no');
      expect(loads).toBe(3);
    });

    it('when several would refuse the remembered answer at once, then they share one load again', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      await cache.get('k', async () => 'no');
      await settle();
      const held = heldLoad<string>();
      const confirmations = [cache.confirmed('k', held.load, accepting), cache.confirmed('k', held.load, accepting)];
      held.release('yes');
      expect(await Promise.all(confirmations)).toEqual(['yes', 'yes']);
      expect(held.calls()).toBe(1);
    });

    it('when a load of the key is already running, then its answer is shared and stands unchecked (it began after the change was heard of)', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      const held = heldLoad<string>();
      const checked: string[] = [];
      const recording = (value: string) => (checked.push(value), false);
      const first = cache.confirmed('k', held.load, recording);
      const joined = cache.confirmed('k', async () => 'never', recording);
      const viaGet = cache.get('k', async () => 'never');
      held.release('no');
      expect(await Promise.all([first, joined, viaGet])).toEqual(['no', 'no', 'no']);
      expect({ loads: held.calls(), checked }).toEqual({ loads: 1, checked: [] });
      await settle();
      // Remembered now, so the next refusal is confirmed.
      expect(await cache.confirmed('k', async () => 'yes', recording)).toBe('yes');
      expect(checked).toEqual(['no']);
    });

    it('when cleared while a confirming load is running, then a later confirmation does not share it, and its answer is not put back', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      await cache.get('k', async () => 'no');
      await settle();
      const held = heldLoad<string>();
      const stale = cache.confirmed('k', held.load, accepting);
      cache.clear();
      expect(await cache.confirmed('k', async () => 'after the change', accepting)).toBe('after the change');
      held.release('before the change');
      expect(await stale).toBe('before the change');
      await settle();
      expect(await cache.get('k', async () => 'never')).toBe('after the change');
    });

    it('when the confirming load fails, then the failure reaches the caller and nothing is remembered for the key', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 500, clock });
      await cache.get('k', async () => 'no');
      await settle();
      await expect(cache.confirmed('k', async () => Promise.reject(new Error('down')), accepting)).rejects.toThrow('down');
      await settle();
      expect(cache.size).toBe(0);
      expect(await cache.confirmed('k', async () => 'yes', accepting)).toBe('yes');
    });

    it('when the TTL is zero, then every confirmation loads', async () => {
      const cache = new ShortLivedCache<string>({ ttlMs: 0, clock });
      let loads = 0;
      await cache.confirmed('k', async () => (loads++, 'yes'), accepting);
      await cache.confirmed('k', async () => (loads++, 'yes'), accepting);
      expect(loads).toBe(2);
    });
  });
});
