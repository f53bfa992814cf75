import { isolatedMongoUrl } from '@sandbox/testing';
import { MongoDatabase } from '../../src/stores/mongo-database';

/** What a store contract suite needs from each adapter. */
export interface StoreHarness<S> {
  store: S;
  /** Empties the store between tests. */
  reset(): Promise<void>;
  /** Releases it (and drops the test database). */
  close(): Promise<void>;
}

/** A database of this test file's own on the real MongoDB-wire server, dropped afterwards. */
export async function openTestDatabase(label: string): Promise<{ database: MongoDatabase; url: string; drop(): Promise<void> }> {
  const url = isolatedMongoUrl(`identity_${label}`);
  const database = await MongoDatabase.connect(url);
  return {
    database,
    url,
    async drop() {
      await database.connection.db?.dropDatabase();
      await database.close();
    },
  };
}

/** A mongo-backed harness: `build` makes the store (and creates its indexes); reset empties its collections. */
export async function mongoHarness<S extends { ensureIndexes(): Promise<void> }>(
  label: string,
  build: (database: MongoDatabase) => S,
): Promise<StoreHarness<S>> {
  const { database, drop } = await openTestDatabase(label);
  const store = build(database);
  await store.ensureIndexes();
  return {
    store,
    async reset() {
      for (const model of Object.values(database.connection.models)) await model.deleteMany({});
    },
    close: drop,
  };
}

/** A memory harness: a fresh store for every test. */
export function memoryHarness<S>(build: () => S): StoreHarness<S> {
  const harness: StoreHarness<S> = {
    store: build(),
    async reset() {
      harness.store = build();
    },
    async close() {},
  };
  return harness;
}
