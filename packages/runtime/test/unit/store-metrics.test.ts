import { instrumentStore, Registry, storeMetrics } from '@sandbox/runtime';

class Refusal {}

/** A store shaped like the adapters: async methods, a private field, a getter, a sync helper, a call to itself. */
class FakeStore {
  #rows = new Map<string, string>();
  readonly name = 'fake';
  calls = 0;

  get size(): number {
    return this.#rows.size;
  }

  async put(key: string, value: string): Promise<void> {
    this.calls++;
    this.#rows.set(key, value);
  }

  async get(key: string): Promise<string | undefined> {
    return this.#rows.get(key);
  }

  /** Calls another method of its own: only the outer call is an operation. */
  async putTwice(key: string, value: string): Promise<void> {
    await this.put(key, value);
    await this.put(key, value);
  }

  async broken(): Promise<void> {
    throw new Error('connection reset');
  }

  async refuse(): Promise<void> {
    throw new Refusal();
  }

  keyOf(id: string): string {
    return `fake:${id}`;
  }
}

/** The value of one sample line, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('instrumentStore', () => {
  let registry: Registry;
  let raw: FakeStore;
  let store: FakeStore;

  beforeEach(() => {
    registry = new Registry();
    raw = new FakeStore();
    store = instrumentStore(raw, 'redis', storeMetrics(registry), { prefix: 'fake.', isAnswer: (reason) => reason instanceof Refusal });
  });

  it('when an operation succeeds, then it is counted ok and timed, and its answer is unchanged', async () => {
    await store.put('a', '1');
    expect(await store.get('a')).toBe('1');
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_store_operations_total{store="redis",operation="fake.put",outcome="ok"}')).toBe(1);
    expect(sample(text, 'sandbox_store_operations_total{store="redis",operation="fake.get",outcome="ok"}')).toBe(1);
    expect(sample(text, 'sandbox_store_operation_duration_seconds_count{store="redis",operation="fake.put"}')).toBe(1);
  });

  it('when an operation fails, then it is counted as an error and the same error reaches the caller', async () => {
    await expect(store.broken()).rejects.toThrow('connection reset');
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_store_operations_total{store="redis",operation="fake.broken",outcome="error"}')).toBe(1);
  });

  it('when a rejection is an answer (isAnswer), then it is counted ok and still rejects', async () => {
    await expect(store.refuse()).rejects.toBeInstanceOf(Refusal);
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_store_operations_total{store="redis",operation="fake.refuse",outcome="ok"}')).toBe(1);
    expect(sample(text, 'sandbox_store_operations_total{store="redis",operation="fake.refuse",outcome="error"}')).toBeUndefined();
  });

  it("when a method calls the store's own methods, then only the outer call is counted", async () => {
    await store.putTwice('a', '1');
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_store_operations_total{store="redis",operation="fake.putTwice",outcome="ok"}')).toBe(1);
    expect(sample(text, 'sandbox_store_operations_total{store="redis",operation="fake.put",outcome="ok"}')).toBeUndefined();
    expect(raw.calls).toBe(2);
  });

  it('fields, getters over private fields and synchronous methods work as before and are not counted', async () => {
    await store.put('a', '1');
    expect(store.size).toBe(1);
    expect(store.name).toBe('fake');
    expect(store.keyOf('x')).toBe('fake:x');
    expect(store).toBeInstanceOf(FakeStore);
    expect(await registry.metrics()).not.toContain('fake.keyOf');
  });

  it('without options, every rejection is an error and the operation is the bare method name', async () => {
    const plain = instrumentStore(new FakeStore(), 'memory', storeMetrics(registry));
    await expect(plain.refuse()).rejects.toBeInstanceOf(Refusal);
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_store_operations_total{store="memory",operation="refuse",outcome="error"}')).toBe(1);
  });
});
