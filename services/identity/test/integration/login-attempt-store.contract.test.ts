import type { LoginAttemptStore } from '../../src/stores/login-attempt-store';
import { MemoryLoginAttemptStore } from '../../src/stores/memory-login-attempt-store';
import { MongoLoginAttemptStore } from '../../src/stores/mongo-login-attempt-store';
import { memoryHarness, mongoHarness, type StoreHarness } from './store-harness';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function describeLoginAttemptStoreContract(name: string, open: () => Promise<StoreHarness<LoginAttemptStore>>) {
  describe(`LoginAttemptStore contract: ${name}`, () => {
    let harness: StoreHarness<LoginAttemptStore>;
    beforeAll(async () => {
      harness = await open();
    });
    beforeEach(() => harness.reset());
    afterAll(() => harness.close());

    it('when failures are recorded, then they are counted per key with the time of the latest', async () => {
      await expect(harness.store.get('k', at(-900))).resolves.toBeUndefined();
      await harness.store.recordFailure('k', at(2));
      await harness.store.recordFailure('k', at(1));
      await harness.store.recordFailure('other', at(3));
      await expect(harness.store.get('k', at(-900))).resolves.toEqual({ failures: 2, lastFailureAt: at(2) });
    });

    it('when failures are older than the window, then they do not count', async () => {
      await harness.store.recordFailure('k', at(0));
      await harness.store.recordFailure('k', at(100));
      await expect(harness.store.get('k', at(50))).resolves.toEqual({ failures: 1, lastFailureAt: at(100) });
      await expect(harness.store.get('k', at(101))).resolves.toBeUndefined();
    });

    it('when many failures arrive at once, then none is lost', async () => {
      await Promise.all(Array.from({ length: 25 }, () => harness.store.recordFailure('k', at(5))));
      await expect(harness.store.get('k', at(-900))).resolves.toMatchObject({ failures: 25 });
    });

    it('when cleared or stale, then removed', async () => {
      await harness.store.recordFailure('a', at(0));
      await harness.store.recordFailure('b', at(100));
      await harness.store.recordFailure('c', at(10));
      await harness.store.clear('a');
      await expect(harness.store.get('a', at(-900))).resolves.toBeUndefined();
      await expect(harness.store.deleteOlderThan(at(50))).resolves.toBe(1);
      await expect(harness.store.get('b', at(-900))).resolves.toBeDefined();
      await expect(harness.store.get('c', at(-900))).resolves.toBeUndefined();
    });
  });
}

describeLoginAttemptStoreContract('memory', async () => memoryHarness(() => new MemoryLoginAttemptStore()));
describeLoginAttemptStoreContract('mongo', () => mongoHarness('attempts', (db) => new MongoLoginAttemptStore(db)));
