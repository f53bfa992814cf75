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

    it('when a user is updated, then the fields are set, null removes one, and the user after the change is answered', async () => {
      const ada = user();
      await harness.store.insert(ada);
      const disabledAt = new Date('2030-01-02T00:00:00.000Z');
      await expect(harness.store.update(ada.id, { disabledAt, operator: true })).resolves.toEqual({ ...ada, disabledAt, operator: true });
      await expect(harness.store.update(ada.id, { disabledAt: null, lastSeenAt: disabledAt })).resolves.toEqual({
        ...ada,
        operator: true,
        lastSeenAt: disabledAt,
      });
      await expect(harness.store.findById(ada.id)).resolves.toEqual({ ...ada, operator: true, lastSeenAt: disabledAt });
      await expect(harness.store.update(newResourceId(), { operator: true })).resolves.toBeUndefined();
    });

    it("when an operator's change races a session check's, then neither is lost", async () => {
      for (let round = 0; round < 5; round++) {
        const ada = user();
        await harness.store.insert(ada);
        const at = new Date('2030-01-02T00:00:00.000Z');
        await Promise.all([harness.store.update(ada.id, { disabledAt: at }), harness.store.update(ada.id, { lastSeenAt: at, operator: false })]);
        await expect(harness.store.findById(ada.id)).resolves.toEqual({ ...ada, disabledAt: at, lastSeenAt: at, operator: false });
      }
    });

    it('when a user is deleted, then gone by id and key, and the key is free again', async () => {
      const ada = user();
      await harness.store.insert(ada);
      await expect(harness.store.delete(ada.id)).resolves.toBe(true);
      await expect(harness.store.delete(ada.id)).resolves.toBe(false);
      await expect(harness.store.findByKey(ada.key)).resolves.toBeUndefined();
      await harness.store.insert(user({ key: ada.key }));
    });

    it('lists oldest first (ties by id) after a position, filters by part of the email literally, counts, and finds by ids', async () => {
      const day = (d: number) => new Date(`2030-01-0${d}T00:00:00.000Z`);
      const made = [
        user({ email: 'c.x@example.org', createdAt: day(3) }),
        user({ email: 'a.x@example.org', createdAt: day(1) }),
        user({ email: 'b@example.org', createdAt: day(2) }),
        user({ email: 'bxx@example.org', createdAt: day(2) }),
      ];
      for (const u of made) await harness.store.insert(u);
      const [c, a, b1, b2] = made as [UserRecord, UserRecord, UserRecord, UserRecord];
      const ties = [b1, b2].sort((x, y) => (x.id < y.id ? -1 : 1));
      expect((await harness.store.list({ limit: 10 })).map((u) => u.id)).toEqual([a.id, ...ties.map((u) => u.id), c.id]);
      const page = await harness.store.list({ limit: 2 });
      const last = page[1]!;
      expect((await harness.store.list({ limit: 10, after: { createdAt: last.createdAt, id: last.id } })).map((u) => u.id)).toEqual([ties[1]!.id, c.id]);
      expect((await harness.store.list({ limit: 10, emailContains: '.x@' })).map((u) => u.email)).toEqual(['a.x@example.org', 'c.x@example.org']);
      await expect(harness.store.count('.x@')).resolves.toBe(2);
      await expect(harness.store.count('(')).resolves.toBe(0);
      await expect(harness.store.count()).resolves.toBe(4);
      expect((await harness.store.createdBefore(day(2))).map((u) => u.id)).toEqual([a.id]);
      expect((await harness.store.findByIds([a.id, c.id, newResourceId()])).map((u) => u.id).sort()).toEqual([a.id, c.id].sort());
    });
  });
}

describeUserStoreContract('memory', async () => memoryHarness(() => new MemoryUserStore()));
describeUserStoreContract('mongo', () => mongoHarness('users', (db) => new MongoUserStore(db)));
