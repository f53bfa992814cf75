import { MemoryUsageStore } from '../../src/stores/memory-usage-store';
import { MongoUsageStore } from '../../src/stores/mongo-usage-store';
import type { UsageRecord, UsageStore } from '../../src/stores/usage-store';
import { memoryHarness, openTestDatabase, type StoreHarness } from './store-harness';

const APP_A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const APP_B = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const count = (overrides: Partial<UsageRecord> = {}): UsageRecord => ({
  day: '2030-01-10',
  app: APP_A,
  appId: 'app_AAAAAAAAAAAAAAAAAAAAAA',
  userId: 'user-a',
  authStyle: 'api_key_header',
  routeFamily: 'data',
  requests: 1,
  lastAt: new Date('2030-01-10T10:00:00.000Z'),
  ...overrides,
});
const byKey = (rows: UsageRecord[]) =>
  [...rows].sort((x, y) => `${x.day}${x.app}${x.authStyle}${x.routeFamily}`.localeCompare(`${y.day}${y.app}${y.authStyle}${y.routeFamily}`));

/** A harness, and another store on the same data: what a second identity replica would be. */
type UsageHarness = StoreHarness<UsageStore> & { replica(): UsageStore };

function describeUsageStoreContract(name: string, open: () => Promise<UsageHarness>) {
  describe(`UsageStore contract: ${name}`, () => {
    let harness: UsageHarness;
    beforeAll(async () => {
      harness = await open();
    });
    beforeEach(() => harness.reset());
    afterAll(() => harness.close());

    it('when counts are added, then each (day, app, style, family) is one row: requests add up, the latest time is kept', async () => {
      await harness.store.add([
        count({ requests: 3 }),
        count({ requests: 2, lastAt: new Date('2030-01-10T12:00:00.000Z') }),
        count({ authStyle: 'basic', requests: 4 }),
      ]);
      await harness.store.add([count({ requests: 5, lastAt: new Date('2030-01-10T08:00:00.000Z') })]);
      expect(byKey(await harness.store.rows())).toEqual([
        count({ requests: 10, lastAt: new Date('2030-01-10T12:00:00.000Z') }),
        count({ authStyle: 'basic', requests: 4 }),
      ]);
    });

    it('when many batches of the same rows arrive at once, through this store and another replica, then not one request is lost', async () => {
      const replica = harness.replica();
      const batches = Array.from({ length: 40 }, (_, i) => [
        count({ requests: 1 }),
        count({ routeFamily: 'auth', requests: 2, lastAt: new Date(Date.UTC(2030, 0, 10, 10, i)) }),
      ]);
      await Promise.all(batches.map((batch, i) => (i % 2 === 0 ? harness.store : replica).add(batch)));
      expect(byKey(await harness.store.rows())).toEqual([
        count({ routeFamily: 'auth', requests: 80, lastAt: new Date(Date.UTC(2030, 0, 10, 10, 39)) }),
        count({ requests: 40 }),
      ]);
      expect((await replica.totalsByUser(['user-a'])).get('user-a')).toEqual({ requests: 120, lastAt: new Date(Date.UTC(2030, 0, 10, 10, 39)) });
    });

    it('when one flush carries more rows than the database has connections, twice, then both land and the store still answers', async () => {
      // 120 rows, each already stored the second time: one update command of them wedged FerretDB (see UPSERTS_PER_COMMAND).
      const rows = Array.from({ length: 120 }, (_, i) => count({ routeFamily: `family-${String(i).padStart(3, '0')}` }));
      await harness.store.add(rows);
      await harness.store.add(rows);
      const stored = await harness.store.rows();
      expect(stored).toHaveLength(120);
      expect(stored.every((row) => row.requests === 2)).toBe(true);
    });

    it('reads rows of a range of days, and totals per user', async () => {
      await harness.store.add([
        count({ day: '2030-01-09', requests: 1 }),
        count({ day: '2030-01-10', requests: 2 }),
        count({ day: '2030-01-11', requests: 4, lastAt: new Date('2030-01-11T01:00:00.000Z') }),
        count({ app: APP_B, userId: 'user-b', requests: 8 }),
      ]);
      expect((await harness.store.rows('2030-01-10', '2030-01-10')).map((row) => row.requests).sort()).toEqual([2, 8]);
      expect((await harness.store.rows('2030-01-10')).length).toBe(3);
      expect((await harness.store.rows(undefined, '2030-01-09')).map((row) => row.requests)).toEqual([1]);
      await expect(harness.store.totalsByUser(['user-a', 'user-c'])).resolves.toEqual(
        new Map([['user-a', { requests: 7, lastAt: new Date('2030-01-11T01:00:00.000Z') }]]),
      );
      await expect(harness.store.totalsByUser([])).resolves.toEqual(new Map());
    });

    it('counts and deletes the rows of days before a day (as rows, however they are kept), and the rows of apps or of a user', async () => {
      const replica = harness.replica();
      await harness.store.add([count({ day: '2030-01-08' }), count({ day: '2030-01-09' }), count({ day: '2030-01-10' })]);
      await replica.add([count({ day: '2030-01-08' }), count({ day: '2030-01-09', app: APP_B, userId: 'user-b' })]);
      await expect(harness.store.countBefore('2030-01-10')).resolves.toBe(3);
      await expect(harness.store.deleteBefore('2030-01-10')).resolves.toBe(3);
      await expect(harness.store.countBefore('2030-01-10')).resolves.toBe(0);
      await harness.store.add([count({ app: APP_B, userId: 'user-b' }), count({ day: '2030-01-11' })]);
      expect((await harness.store.apps()).sort()).toEqual([APP_A, APP_B]);
      await harness.store.deleteForApps([APP_B]);
      await expect(harness.store.apps()).resolves.toEqual([APP_A]);
      await harness.store.deleteForUser('user-a');
      await expect(harness.store.rows()).resolves.toEqual([]);
      await harness.store.deleteForApps([]);
    });
  });
}

describeUsageStoreContract('memory', async () => {
  const harness = memoryHarness<UsageStore>(() => new MemoryUsageStore());
  // One process keeps memory stores: its "replica" is the same store.
  return Object.assign(harness, { replica: () => harness.store });
});
describeUsageStoreContract('mongo', async () => {
  const { database, drop } = await openTestDatabase('usage');
  const store = new MongoUsageStore(database);
  await store.ensureIndexes();
  return {
    store,
    replica: () => new MongoUsageStore(database),
    async reset() {
      await database.connection.collection('usage').deleteMany({});
    },
    close: drop,
  };
});
