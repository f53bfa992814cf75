import type { ExerciseProgressRecord, ExerciseProgressStore } from '../../src/stores/exercise-progress-store';
import { MemoryExerciseProgressStore } from '../../src/stores/memory-exercise-progress-store';
import { MongoExerciseProgressStore } from '../../src/stores/mongo-exercise-progress-store';
import { memoryHarness, openTestDatabase, type StoreHarness } from './store-harness';

const attempted = (userId: string, exerciseId: string, at: number, hint = 'Your last try was refused with 401.'): ExerciseProgressRecord => ({
  userId,
  exerciseId,
  status: 'attempted',
  firstAttemptAt: 1000,
  lastAttempt: { at, hint, facts: { grant: 'client_credentials' }, path: '/oauth/token' },
});
const done = (userId: string, exerciseId: string, at: number, app = 'aaaaaaaaaaaaaaaaaaaaaaaa'): ExerciseProgressRecord => ({
  userId,
  exerciseId,
  status: 'done',
  firstAttemptAt: 1000,
  doneAt: at,
  doneWith: app,
});
const sorted = (records: ExerciseProgressRecord[]) => [...records].sort((a, b) => `${a.userId}${a.exerciseId}`.localeCompare(`${b.userId}${b.exerciseId}`));

/** A harness, and another store on the same data: what a second identity replica would be. */
type ProgressHarness = StoreHarness<ExerciseProgressStore> & { replica(): ExerciseProgressStore };

function describeProgressStoreContract(name: string, open: () => Promise<ProgressHarness>) {
  describe(`ExerciseProgressStore contract: ${name}`, () => {
    let harness: ProgressHarness;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(async () => harness.close());
    beforeEach(async () => harness.reset());

    it('when records are saved, then each user reads back their own, whole', async () => {
      await harness.store.save([attempted('ada', 'auth-basic', 2000), done('ada', 'http-batch', 3000), attempted('bob', 'auth-basic', 2500)]);
      expect(sorted(await harness.store.forUsers(['ada']))).toEqual(sorted([attempted('ada', 'auth-basic', 2000), done('ada', 'http-batch', 3000)]));
      expect(await harness.store.forUsers(['cy'])).toEqual([]);
      expect(await harness.store.forUsers([])).toEqual([]);
    });

    it('when an attempt is saved again, then the newer replaces it, and done replaces an attempt', async () => {
      await harness.store.save([attempted('ada', 'auth-basic', 2000)]);
      await harness.store.save([attempted('ada', 'auth-basic', 2600, 'newer')]);
      expect(await harness.store.forUsers(['ada'])).toEqual([attempted('ada', 'auth-basic', 2600, 'newer')]);
      await harness.store.save([done('ada', 'auth-basic', 2700)]);
      expect(await harness.store.forUsers(['ada'])).toEqual([done('ada', 'auth-basic', 2700)]);
    });

    it('when another replica saves an older attempt over one already done, then it stays done', async () => {
      await harness.store.save([done('ada', 'auth-basic', 2700)]);
      await harness.replica().save([attempted('ada', 'auth-basic', 2600), done('ada', 'http-batch', 2800)]);
      expect(sorted(await harness.store.forUsers(['ada']))).toEqual(sorted([done('ada', 'auth-basic', 2700), done('ada', 'http-batch', 2800)]));
      // Done again (a later batch) keeps the first completion.
      await harness.replica().save([done('ada', 'auth-basic', 9999, 'bbbbbbbbbbbbbbbbbbbbbbbb')]);
      expect((await harness.store.forUsers(['ada'])).find((r) => r.exerciseId === 'auth-basic')).toEqual(done('ada', 'auth-basic', 2700));
    });

    it("when a user's progress is deleted, then nobody else's goes", async () => {
      await harness.store.save([done('ada', 'auth-basic', 2000), attempted('bob', 'auth-basic', 2000)]);
      await harness.store.deleteForUser('ada');
      expect(await harness.store.forUsers(['ada', 'bob'])).toEqual([attempted('bob', 'auth-basic', 2000)]);
    });
  });
}

describeProgressStoreContract('memory', async () => {
  const harness = memoryHarness<ExerciseProgressStore>(() => new MemoryExerciseProgressStore());
  // One process keeps memory stores: its "replica" is the same store.
  return Object.assign(harness, { replica: () => harness.store });
});
describeProgressStoreContract('mongo', async () => {
  const { database, drop } = await openTestDatabase('exercise_progress');
  const store = new MongoExerciseProgressStore(database);
  await store.ensureIndexes();
  return {
    store,
    replica: () => new MongoExerciseProgressStore(database),
    async reset() {
      await database.connection.collection('exercise_progress').deleteMany({});
    },
    close: drop,
  };
});
