import { newResourceId } from '../../src/domain/credentials';
import { DuplicateKeyError } from '../../src/stores/errors';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { MongoUserStore } from '../../src/stores/mongo-user-store';
import type { UserRecord, UserStore } from '../../src/stores/user-store';
import { memoryHarness, mongoHarness, type StoreHarness } from './store-harness';

const user = (overrides: Partial<UserRecord> = {}): UserRecord => ({
  id: newResourceId(),
  key: `password:${newResourceId()}@example.com`,
  email: 'ada@example.com',
  provider: 'password',
  passwordHash: 'scrypt$15$8$1$salt$hash',
  createdAt: new Date('2030-01-01T00:00:00.000Z'),
  ...overrides,
});

function describeUserStoreContract(name: string, open: () => Promise<StoreHarness<UserStore>>) {
  describe(`UserStore contract: ${name}`, () => {
    let harness: StoreHarness<UserStore>;
    beforeAll(async () => {
      harness = await open();
    });
    beforeEach(() => harness.reset());
    afterAll(() => harness.close());

    it('when a user is inserted, then it is found by id and by key, exactly as written', async () => {
      const ada = user();
      await harness.store.insert(ada);
      await expect(harness.store.findById(ada.id)).resolves.toEqual(ada);
      await expect(harness.store.findByKey(ada.key)).resolves.toEqual(ada);
    });

    it('when a key is taken, then the second insert fails with DuplicateKeyError and the first is untouched', async () => {
      const ada = user();
      await harness.store.insert(ada);
      await expect(harness.store.insert(user({ key: ada.key, email: 'other@example.com' }))).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(harness.store.findByKey(ada.key)).resolves.toEqual(ada);
    });

    it('when nothing matches, then undefined', async () => {
      await expect(harness.store.findById(newResourceId())).resolves.toBeUndefined();
      await expect(harness.store.findByKey('password:nobody@example.com')).resolves.toBeUndefined();
    });

    it('when an external user is first seen twice at once, then both calls end with one and the same user', async () => {
      const key = 'https://idp.example#sub-1';
      const [a, b] = await Promise.all([
        harness.store.findOrInsert(user({ key, provider: 'https://idp.example', passwordHash: undefined })),
        harness.store.findOrInsert(user({ key, provider: 'https://idp.example', passwordHash: undefined })),
      ]);
      expect(a.id).toBe(b.id);
      await expect(harness.store.findByKey(key)).resolves.toMatchObject({ id: a.id });
      const again = await harness.store.findOrInsert(user({ key }));
      expect(again.id).toBe(a.id);
      expect(again.passwordHash).toBeUndefined();
    });
  });
}

describeUserStoreContract('memory', async () => memoryHarness(() => new MemoryUserStore()));
describeUserStoreContract('mongo', () => mongoHarness('users', (db) => new MongoUserStore(db)));
