import type { AppLimitRecord, AppLimitStore } from '../../src/stores/app-limit-store';
import { MemoryAppLimitStore } from '../../src/stores/memory-app-limit-store';
import { MongoAppLimitStore } from '../../src/stores/mongo-app-limit-store';
import { memoryHarness, mongoHarness, type StoreHarness } from './store-harness';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const limit = (appId: string, overrides: Partial<AppLimitRecord> = {}): AppLimitRecord => ({
  appId,
  exempt: false,
  perSecond: 2.5,
  burst: 10,
  setAt: T0,
  setBy: { kind: 'cli', id: 'root@pod', email: '' },
  ...overrides,
});
const byApp = (limits: AppLimitRecord[]) => [...limits].sort((x, y) => x.appId.localeCompare(y.appId));

function describeAppLimitStoreContract(name: string, open: () => Promise<StoreHarness<AppLimitStore>>) {
  describe(`AppLimitStore contract: ${name}`, () => {
    let harness: StoreHarness<AppLimitStore>;
    beforeAll(async () => {
      harness = await open();
    });
    beforeEach(() => harness.reset());
    afterAll(() => harness.close());

    it('when limits are put, then they list exactly as written, and putting again replaces', async () => {
      await harness.store.put(limit('app_A'));
      await harness.store.put(limit('app_B', { exempt: true, perSecond: 0, burst: 0, setBy: { kind: 'session', id: 'u1', email: 'ops@example.org' } }));
      await harness.store.put(limit('app_A', { perSecond: 500, burst: 1000 }));
      expect(byApp(await harness.store.list())).toEqual([
        limit('app_A', { perSecond: 500, burst: 1000 }),
        limit('app_B', { exempt: true, perSecond: 0, burst: 0, setBy: { kind: 'session', id: 'u1', email: 'ops@example.org' } }),
      ]);
    });

    it('when two operators set the same app at once, then both succeed and one of them is in force', async () => {
      await Promise.all([harness.store.put(limit('app_A', { burst: 1 })), harness.store.put(limit('app_A', { burst: 2 }))]);
      const [only, ...rest] = await harness.store.list();
      expect(rest).toEqual([]);
      expect([1, 2]).toContain(only?.burst);
    });

    it('when cleared, then gone, and clearing again says there was none; deleting for several apps takes each', async () => {
      for (const appId of ['app_A', 'app_B', 'app_C']) await harness.store.put(limit(appId));
      await expect(harness.store.delete('app_A')).resolves.toBe(true);
      await expect(harness.store.delete('app_A')).resolves.toBe(false);
      await expect(harness.store.deleteForAppIds(['app_B', 'app_X'])).resolves.toBe(1);
      await expect(harness.store.deleteForAppIds([])).resolves.toBe(0);
      expect((await harness.store.list()).map((l) => l.appId)).toEqual(['app_C']);
    });
  });
}

describeAppLimitStoreContract('memory', async () => memoryHarness(() => new MemoryAppLimitStore()));
describeAppLimitStoreContract('mongo', () => mongoHarness('app_limits', (db) => new MongoAppLimitStore(db)));
