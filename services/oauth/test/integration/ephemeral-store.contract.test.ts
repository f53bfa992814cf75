import { requireStoreUrls, uniqueId } from '@sandbox/testing';
import type { EphemeralStore } from '../../src/stores/ephemeral-store';
import { MemoryEphemeralStore } from '../../src/stores/memory-ephemeral-store';
import { RedisEphemeralStore } from '../../src/stores/redis-ephemeral-store';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One contract, two adapters: the embedded default must behave like Redis. */
function describeEphemeralStoreContract(name: string, open: () => Promise<EphemeralStore>) {
  describe(`EphemeralStore contract: ${name}`, () => {
    let store: EphemeralStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => store.close());

    it('when a value is put, then it can be read until it expires', async () => {
      const key = uniqueId('k');
      expect(await store.put(key, 'v1', 300)).toBe(true);
      expect(await store.get(key)).toBe('v1');
      await sleep(450);
      expect(await store.get(key)).toBeUndefined();
    });

    it('when a value is taken, then the first take gets it and the second gets nothing', async () => {
      const key = uniqueId('code');
      await store.put(key, 'once', 10_000);
      const [a, b] = await Promise.all([store.take(key), store.take(key)]);
      expect([a, b].filter((v) => v === 'once')).toHaveLength(1);
      expect(await store.get(key)).toBeUndefined();
    });

    it('when put with onlyIfAbsent over a live key, then it is refused and the old value stays', async () => {
      const key = uniqueId('nonce');
      expect(await store.put(key, 'first', 10_000, { onlyIfAbsent: true })).toBe(true);
      expect(await store.put(key, 'second', 10_000, { onlyIfAbsent: true })).toBe(false);
      expect(await store.get(key)).toBe('first');
    });

    it('when put with onlyIfAbsent over an expired key, then it succeeds', async () => {
      const key = uniqueId('nonce');
      await store.put(key, 'old', 100);
      await sleep(200);
      expect(await store.put(key, 'new', 10_000, { onlyIfAbsent: true })).toBe(true);
      expect(await store.get(key)).toBe('new');
    });

    it('when deleted, then it is gone; deleting a missing key is fine', async () => {
      const key = uniqueId('k');
      await store.put(key, 'v', 10_000);
      await store.delete(key);
      await store.delete(key);
      expect(await store.get(key)).toBeUndefined();
    });

    it('when pinged while reachable, then ping resolves', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}

describeEphemeralStoreContract('memory', async () => new MemoryEphemeralStore());
describeEphemeralStoreContract('redis', async () => {
  const store = new RedisEphemeralStore(requireStoreUrls().redisUrl, `test:${uniqueId()}:`);
  await store.connect();
  return store;
});

describe('RedisEphemeralStore when Redis is unreachable', () => {
  it('then ping rejects instead of hanging', async () => {
    const store = new RedisEphemeralStore('redis://127.0.0.1:1');
    await expect(store.connect()).rejects.toThrow();
    await expect(store.ping()).rejects.toThrow();
    await store.close();
  });
});
