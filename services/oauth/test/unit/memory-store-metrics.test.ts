import { createMetricsRegistry } from '@sandbox/runtime';
import { MemoryEphemeralStore } from '../../src/stores/memory-ephemeral-store';
import { memoryStoreMetrics } from '../../src/stores/memory-store-metrics';

/** The value of a gauge without labels, as a scrape reads it. */
async function gauge(registry: ReturnType<typeof createMetricsRegistry>, name: string): Promise<number | undefined> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values[0]?.value;
}

describe('the oauth in-memory store: how full it is, for the alert', () => {
  let now = 1_000_000;
  let store: MemoryEphemeralStore;
  const registry = createMetricsRegistry();

  beforeAll(() => {
    store = new MemoryEphemeralStore({ now: () => now, maxEntries: 4 });
    memoryStoreMetrics(registry, store);
  });
  afterAll(() => store.close());

  it('when nothing is stored, then entries is 0 and the capacity is OAUTH_MEMORY_MAX_ENTRIES', async () => {
    expect(await gauge(registry, 'sandbox_oauth_memory_store_entries')).toBe(0);
    expect(await gauge(registry, 'sandbox_oauth_memory_store_capacity_entries')).toBe(4);
  });

  it('when entries are stored, then each scrape counts them; when they expire, then they no longer count', async () => {
    await store.put('a', '1', 1000);
    await store.put('b', '1', 1000);
    await store.put('c', '1', 60_000);
    expect(await gauge(registry, 'sandbox_oauth_memory_store_entries')).toBe(3);
    now += 1001;
    expect(await gauge(registry, 'sandbox_oauth_memory_store_entries')).toBe(1);
  });

  it('when the store is full, then entries equals the capacity (and a new key is refused)', async () => {
    for (const key of ['d', 'e', 'f']) await store.put(key, '1', 60_000);
    expect(await gauge(registry, 'sandbox_oauth_memory_store_entries')).toBe(4);
    await expect(store.put('g', '1', 60_000)).rejects.toThrow(/memory store is full/);
  });

  it('when the metrics are exposed, then both series are in the text format with their help', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/^# TYPE sandbox_oauth_memory_store_entries gauge$/m);
    expect(text).toMatch(/^sandbox_oauth_memory_store_entries 4$/m);
    expect(text).toMatch(/^sandbox_oauth_memory_store_capacity_entries 4$/m);
  });
});
