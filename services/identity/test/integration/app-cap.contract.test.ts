import { randomBytes } from 'node:crypto';
import { newAppId, newResourceId } from '../../src/domain/credentials';
import type { AppRecord, AppStore } from '../../src/stores/app-store';
import { DuplicateKeyError } from '../../src/stores/errors';
import { MemoryAppStore } from '../../src/stores/memory-app-store';
import { MongoAppStore } from '../../src/stores/mongo-app-store';
import { MongoDatabase } from '../../src/stores/mongo-database';
import { openTestDatabase } from './store-harness';

jest.setTimeout(120_000);

/*
 * The apps-per-owner cap is the store's to hold (AppStore.insert with a cap):
 * concurrent capped inserts, through two stores on two connections as two
 * identity replicas would make them, end with exactly the cap stored. The
 * memory store (one process) must answer the same.
 */
const T0 = new Date('2030-01-01T00:00:00.000Z');
const token = () => randomBytes(16).toString('base64url');
const app = (ownerId: string): AppRecord => ({
  id: newResourceId(),
  ownerId,
  name: 'My app',
  description: '',
  appId: newAppId(),
  redirectUris: [],
  scopes: ['hr:read'],
  status: 'active',
  createdAt: T0,
  updatedAt: T0,
  credentials: {
    appSecret: { hash: token(), createdAt: T0, hint: 'aaaa' },
    apiKey: { lookup: token(), sealed: `v1.${token()}.${token()}.${token()}`, createdAt: T0, hint: 'bbbb' },
    bearerToken: { hash: token(), createdAt: T0, hint: 'cccc' },
  },
});

/** Two stores that share what they store: two replicas' views of one database, or the one memory store twice. */
interface Replicas {
  stores: [AppStore, AppStore];
  close(): Promise<void>;
}

/** `count` capped inserts for one owner at once, alternating between the two stores; how many were stored. */
async function insertAtOnce(replicas: Replicas, ownerId: string, count: number, cap: number): Promise<boolean[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => replicas.stores[i % 2]!.insert(app(ownerId), cap)));
}
const stored = (results: boolean[]) => results.filter(Boolean).length;

function describeAppCap(name: string, open: () => Promise<Replicas>) {
  describe(`the apps-per-owner cap: ${name}`, () => {
    let replicas: Replicas;
    let store: AppStore;
    beforeAll(async () => {
      replicas = await open();
      store = replicas.stores[0];
    });
    afterAll(() => replicas.close());

    // The whole system's test sends the 150 against 100 (services/gateway/test/integration/caps-replicas.test.ts); fewer do here.
    it('when 60 apps are inserted at once for one owner through two replicas against a cap of 40, then exactly 40 are stored and 20 refused', async () => {
      const results = await insertAtOnce(replicas, 'owner-60', 60, 40);
      expect(stored(results)).toBe(40);
      await expect(replicas.stores[1].countByOwner('owner-60')).resolves.toBe(40);
      // Another owner is not held back.
      await expect(store.insert(app('owner-other'), 40)).resolves.toBe(true);
    });

    it('when apps are deleted, then exactly as many concurrent inserts succeed again; deleting all frees the whole cap', async () => {
      const owner = 'owner-delete';
      await insertAtOnce(replicas, owner, 10, 10);
      const owned = await store.listByOwner(owner);
      expect(owned).toHaveLength(10);
      for (const x of owned.slice(0, 3)) await replicas.stores[1].deleteOwned(owner, x.id);
      expect(stored(await insertAtOnce(replicas, owner, 12, 10))).toBe(3);
      await expect(store.countByOwner(owner)).resolves.toBe(10);
      await store.deleteAllOwned(owner);
      expect(stored(await insertAtOnce(replicas, owner, 12, 10))).toBe(10);
    });

    it('when apps were stored without a cap (before the cap was the store’s), then they count against it', async () => {
      const owner = 'owner-legacy';
      const legacy = [app(owner), app(owner), app(owner), app(owner)];
      for (const x of legacy) await store.insert(x);
      expect(stored(await insertAtOnce(replicas, owner, 12, 10))).toBe(6);
      await store.deleteOwned(owner, legacy[0]!.id);
      expect(stored(await insertAtOnce(replicas, owner, 4, 10))).toBe(1);
      await expect(store.countByOwner(owner)).resolves.toBe(10);
    });

    it('when a capped insert clashes on the app’s own keys, then DuplicateKeyError, nothing is stored and no room is taken', async () => {
      const owner = 'owner-clash';
      const first = app(owner);
      await expect(store.insert(first, 2)).resolves.toBe(true);
      await expect(store.findOwned(owner, first.id)).resolves.toEqual(first);
      const clash = { ...app(owner), appId: first.appId };
      await expect(replicas.stores[1].insert(clash, 2)).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(store.findOwned(owner, clash.id)).resolves.toBeUndefined();
      await expect(store.insert(app(owner), 2)).resolves.toBe(true);
      await expect(store.insert(app(owner), 2)).resolves.toBe(false);
    });
  });
}

describeAppCap('memory', async () => {
  const store = new MemoryAppStore();
  return { stores: [store, store], close: async () => undefined };
});

describeAppCap('mongo, two connections', async () => {
  const first = await openTestDatabase('app_cap');
  const second = await MongoDatabase.connect(first.url);
  const stores: [MongoAppStore, MongoAppStore] = [new MongoAppStore(first.database), new MongoAppStore(second)];
  await stores[0].ensureIndexes();
  return {
    stores,
    async close() {
      await second.close();
      await first.drop();
    },
  };
});
