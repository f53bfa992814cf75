import type { ClassMembershipRecord, ClassMembershipStore } from '../../src/stores/class-membership-store';
import type { ClassRecord, ClassStore } from '../../src/stores/class-store';
import { DuplicateKeyError } from '../../src/stores/errors';
import { MemoryClassMembershipStore } from '../../src/stores/memory-class-membership-store';
import { MemoryClassStore } from '../../src/stores/memory-class-store';
import { MongoClassMembershipStore } from '../../src/stores/mongo-class-membership-store';
import { MongoClassStore } from '../../src/stores/mongo-class-store';
import { openTestDatabase } from './store-harness';

/*
 * The class and membership stores (domain/classes.ts), the same contract on
 * memory and on MongoDB (FerretDB in the test lanes): a join code is unique,
 * a learner is in a class once whichever replica adds them, and deletions by
 * class and by user take only theirs. "replica": another store on the same
 * data, as a second identity replica would have.
 */

const klass = (id: string, joinCode: string, createdAt: number, extra: Partial<ClassRecord> = {}): ClassRecord => ({
  id,
  name: `Class ${id}`,
  startsAt: new Date('2030-09-01T09:00:00Z'),
  endsAt: new Date('2030-09-30T17:00:00Z'),
  joinCode,
  createdAt: new Date(createdAt),
  ...extra,
});
const member = (classId: string, userId: string, at: number): ClassMembershipRecord => ({ classId, userId, joinedAt: new Date(at) });

interface Harness {
  classes: ClassStore;
  memberships: ClassMembershipStore;
  replica(): { classes: ClassStore; memberships: ClassMembershipStore };
  reset(): Promise<void>;
  close(): Promise<void>;
}

function describeClassStoresContract(name: string, open: () => Promise<Harness>) {
  describe(`ClassStore and ClassMembershipStore contract: ${name}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await open();
    });
    afterAll(async () => h.close());
    beforeEach(async () => h.reset());

    it('when classes are inserted, then they read back whole, by id, ids and join code, newest first', async () => {
      const a = klass('a'.repeat(24), 'AAAABBBB', 1000, { signUpDomain: 'uni.example.edu' });
      const b = klass('b'.repeat(24), 'CCCCDDDD', 2000, { ssoGroup: 'api-course' });
      await h.classes.insert(a);
      await h.replica().classes.insert(b);
      expect(await h.classes.findById(a.id)).toEqual(a);
      expect(await h.classes.findByJoinCode('CCCCDDDD')).toEqual(b);
      expect(await h.classes.findByJoinCode('EEEEFFFF')).toBeUndefined();
      expect((await h.classes.findByIds([b.id, 'c'.repeat(24)])).map((c) => c.id)).toEqual([b.id]);
      expect((await h.classes.list()).map((c) => c.id)).toEqual([b.id, a.id]);
      expect(await h.classes.delete(a.id)).toBe(true);
      expect(await h.classes.delete(a.id)).toBe(false);
      expect(await h.classes.findById(a.id)).toBeUndefined();
    });

    it('when another class takes a join code already held (on another replica too), then it is refused as a duplicate', async () => {
      await h.classes.insert(klass('a'.repeat(24), 'AAAABBBB', 1000));
      await expect(h.replica().classes.insert(klass('b'.repeat(24), 'AAAABBBB', 2000))).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    it('when a learner is added twice (from two replicas), then they are in the class once, with their first joining', async () => {
      expect(await h.memberships.add(member('c1', 'ada', 1000))).toBe(true);
      expect(await h.replica().memberships.add(member('c1', 'ada', 5000))).toBe(false);
      expect(await h.memberships.add(member('c1', 'bob', 900))).toBe(true);
      expect(await h.memberships.add(member('c2', 'ada', 3000))).toBe(true);
      expect(await h.memberships.forClass('c1')).toEqual([member('c1', 'bob', 900), member('c1', 'ada', 1000)]);
      expect(await h.memberships.forUser('ada')).toEqual([member('c1', 'ada', 1000), member('c2', 'ada', 3000)]);
      expect(await h.memberships.count('c1')).toBe(2);
      expect(await h.memberships.countByClasses(['c1', 'c2', 'c3'])).toEqual(
        new Map([
          ['c1', 2],
          ['c2', 1],
        ]),
      );
      expect(await h.memberships.countByClasses([])).toEqual(new Map());
    });

    it('when memberships are removed by learner, by class or by user, then only theirs go', async () => {
      for (const m of [member('c1', 'ada', 1), member('c1', 'bob', 2), member('c2', 'ada', 3), member('c2', 'cy', 4)]) await h.memberships.add(m);
      expect(await h.memberships.remove('c1', 'bob')).toBe(true);
      expect(await h.memberships.remove('c1', 'bob')).toBe(false);
      await h.memberships.deleteForUser('ada');
      expect(await h.memberships.forClass('c1')).toEqual([]);
      expect(await h.memberships.forClass('c2')).toEqual([member('c2', 'cy', 4)]);
      expect(await h.memberships.deleteForClass('c2')).toBe(1);
      expect(await h.memberships.forUser('cy')).toEqual([]);
    });
  });
}

describeClassStoresContract('memory', async () => {
  let classes = new MemoryClassStore();
  let memberships = new MemoryClassMembershipStore();
  const harness: Harness = {
    get classes() {
      return classes;
    },
    get memberships() {
      return memberships;
    },
    // One process keeps memory stores: its "replica" is the same stores.
    replica: () => ({ classes, memberships }),
    async reset() {
      classes = new MemoryClassStore();
      memberships = new MemoryClassMembershipStore();
    },
    close: async () => undefined,
  };
  return harness;
});
describeClassStoresContract('mongo', async () => {
  const { database, drop } = await openTestDatabase('classes');
  const classes = new MongoClassStore(database);
  const memberships = new MongoClassMembershipStore(database);
  await classes.ensureIndexes();
  await memberships.ensureIndexes();
  return {
    classes,
    memberships,
    replica: () => ({ classes: new MongoClassStore(database), memberships: new MongoClassMembershipStore(database) }),
    async reset() {
      await database.connection.collection('classes').deleteMany({});
      await database.connection.collection('class_memberships').deleteMany({});
    },
    close: drop,
  };
});
