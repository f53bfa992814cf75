import { newLogId } from '../../src/domain/request-logs';
import { MemoryRequestLogStore } from '../../src/stores/memory-request-log-store';
import { MongoRequestLogStore } from '../../src/stores/mongo-request-log-store';
import type { RequestLogRecord, RequestLogStore } from '../../src/stores/request-log-store';
import { memoryHarness, mongoHarness, type StoreHarness } from './store-harness';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const APP_A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const APP_B = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const entry = (app: string, second: number, requestId = `r${second}`): RequestLogRecord => {
  const time = new Date(T0.getTime() + second * 1000);
  return {
    id: newLogId(time),
    app,
    time,
    method: 'GET',
    path: '/playground/auth/api-key',
    status: 200,
    authStyle: 'api_key',
    latencyMs: 1.5,
    requestId,
    failure: '',
  };
};

function describeRequestLogStoreContract(name: string, open: () => Promise<StoreHarness<RequestLogStore>>) {
  describe(`RequestLogStore contract: ${name}`, () => {
    let harness: StoreHarness<RequestLogStore>;
    beforeAll(async () => {
      harness = await open();
    });
    beforeEach(() => harness.reset());
    afterAll(() => harness.close());

    it('when entries are appended, then they list newest first per app, exactly as written', async () => {
      const entries = [entry(APP_A, 1), entry(APP_A, 3), entry(APP_B, 2), entry(APP_A, 2)];
      await harness.store.append(entries);
      await expect(harness.store.list(APP_A, 10)).resolves.toEqual([entries[1], entries[3], entries[0]]);
      await expect(harness.store.count(APP_A)).resolves.toBe(3);
      await expect(harness.store.count('cccccccccccccccccccccccc')).resolves.toBe(0);
    });

    it('when listing after a cursor, then it continues strictly after it, including ties on time', async () => {
      const same = [entry(APP_A, 5, 'x1'), entry(APP_A, 5, 'x2'), entry(APP_A, 5, 'x3'), entry(APP_A, 4, 'y')];
      await harness.store.append(same);
      const first = await harness.store.list(APP_A, 2);
      const rest = await harness.store.list(APP_A, 10, first[1]);
      expect([...first, ...rest].map((e) => e.requestId)).toEqual(['x3', 'x2', 'x1', 'y']);
    });

    it('when trimmed to a cap, then only the newest remain', async () => {
      await harness.store.append([1, 2, 3, 4, 5, 6].map((s) => entry(APP_A, s)));
      await harness.store.append([entry(APP_B, 1)]);
      await expect(harness.store.trim(APP_A, 4)).resolves.toBe(2);
      expect((await harness.store.list(APP_A, 10)).map((e) => e.requestId)).toEqual(['r6', 'r5', 'r4', 'r3']);
      await expect(harness.store.trim(APP_A, 4)).resolves.toBe(0);
      await expect(harness.store.count(APP_B)).resolves.toBe(1);
    });

    it('when an app’s entries are deleted, then only that app’s go', async () => {
      await harness.store.append([entry(APP_A, 1), entry(APP_B, 1), entry(APP_B, 2)]);
      expect((await harness.store.appIds()).sort()).toEqual([APP_A, APP_B]);
      await expect(harness.store.deleteForApps([APP_B])).resolves.toBe(2);
      await expect(harness.store.appIds()).resolves.toEqual([APP_A]);
      await expect(harness.store.deleteForApps([])).resolves.toBe(0);
    });

    it('when a purge deletes entries older than a moment, then those of every app go and the rest stay', async () => {
      await harness.store.append([entry(APP_A, 1), entry(APP_A, 5), entry(APP_B, 2), entry(APP_B, 9)]);
      await expect(harness.store.deleteOlderThan(new Date(T0.getTime() + 5000))).resolves.toBe(2);
      expect((await harness.store.list(APP_A, 10)).map((e) => e.requestId)).toEqual(['r5']);
      expect((await harness.store.list(APP_B, 10)).map((e) => e.requestId)).toEqual(['r9']);
      await expect(harness.store.deleteOlderThan(new Date(T0.getTime() + 5000))).resolves.toBe(0);
    });
  });
}

describeRequestLogStoreContract('memory', async () => memoryHarness(() => new MemoryRequestLogStore()));
describeRequestLogStoreContract('mongo', () => mongoHarness('logs', (db) => new MongoRequestLogStore(db)));
