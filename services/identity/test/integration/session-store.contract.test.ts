import { MemorySessionStore } from '../../src/stores/memory-session-store';
import { MongoSessionStore } from '../../src/stores/mongo-session-store';
import type { SessionRecord, SessionStore } from '../../src/stores/session-store';
import { memoryHarness, mongoHarness, type StoreHarness } from './store-harness';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const session = (id: string, expiresInSeconds: number, kind: SessionRecord['kind'] = 'active'): SessionRecord => ({
  id,
  userId: 'user-1',
  expiresAt: at(expiresInSeconds),
  kind,
});

function describeSessionStoreContract(name: string, open: () => Promise<StoreHarness<SessionStore>>) {
  describe(`SessionStore contract: ${name}`, () => {
    let harness: StoreHarness<SessionStore>;
    beforeAll(async () => {
      harness = await open();
    });
    beforeEach(() => harness.reset());
    afterAll(() => harness.close());

    it('when a session is stored, then it is found until it expires, and not from then on (cleanup or not)', async () => {
      await harness.store.put(session('s1', 60));
      await expect(harness.store.find('s1', at(59))).resolves.toEqual(session('s1', 60));
      await expect(harness.store.find('s1', at(60))).resolves.toBeUndefined();
    });

    it('when the same id is put again, then the record is replaced', async () => {
      await harness.store.put(session('s1', 60));
      await harness.store.put(session('s1', 120, 'revoked'));
      await expect(harness.store.find('s1', at(90))).resolves.toEqual(session('s1', 120, 'revoked'));
    });

    it('when deleted, then gone, and deleting again reports nothing deleted', async () => {
      await harness.store.put(session('s1', 60));
      await expect(harness.store.delete('s1')).resolves.toBe(true);
      await expect(harness.store.find('s1', at(0))).resolves.toBeUndefined();
      await expect(harness.store.delete('s1')).resolves.toBe(false);
    });

    it('when the cleanup runs, then exactly the expired records are removed', async () => {
      await harness.store.put(session('old', 10));
      await harness.store.put(session('edge', 20));
      await harness.store.put(session('live', 30));
      await expect(harness.store.deleteExpired(at(20))).resolves.toBe(2);
      await expect(harness.store.find('live', at(20))).resolves.toBeDefined();
      await expect(harness.store.deleteExpired(at(20))).resolves.toBe(0);
    });

    it("when a user's records are deleted, then their active and signed-out ones go, a deleted user's record stays, and nobody else's is touched", async () => {
      await harness.store.put(session('s1', 60));
      await harness.store.put(session('x1', 60, 'revoked'));
      await harness.store.put({ ...session('other', 60), userId: 'user-2' });
      const tombstone: SessionRecord = { id: 'd_1', userId: 'user-1', kind: 'deleted', issuedBefore: at(5), expiresAt: at(86_400) };
      await harness.store.put(tombstone);
      await expect(harness.store.deleteForUser('user-1')).resolves.toBe(2);
      await expect(harness.store.find('d_1', at(10))).resolves.toEqual(tombstone);
      await expect(harness.store.find('other', at(10))).resolves.toBeDefined();
      await expect(harness.store.find('s1', at(10))).resolves.toBeUndefined();
      await expect(harness.store.deleteForUser('user-1')).resolves.toBe(0);
    });
  });
}

describeSessionStoreContract('memory', async () => memoryHarness(() => new MemorySessionStore()));
describeSessionStoreContract('mongo', () => mongoHarness('sessions', (db) => new MongoSessionStore(db)));
