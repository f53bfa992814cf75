import { Schema, type Model } from 'mongoose';
import { unavailable } from '@sandbox/runtime';
import { DuplicateKeyError } from './errors';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';
import { MongoLeaseLock } from './mongo-lock';
import type { UserCursor, UserPatch, UserRecord, UserStore } from './user-store';

type UserDoc = { _id: string } & Omit<UserRecord, 'id'>;

const userSchema = new Schema<UserDoc>(
  {
    _id: { type: String, required: true },
    key: { type: String, required: true },
    email: { type: String, default: '' },
    provider: { type: String, required: true },
    passwordHash: { type: String },
    createdAt: { type: Date, required: true },
    disabledAt: { type: Date },
    lastSeenAt: { type: Date },
    operator: { type: Boolean },
    groups: { type: [String], default: undefined },
  },
  { collection: 'users', versionKey: false, strict: 'throw' },
);
userSchema.index({ key: 1 }, { unique: true });
userSchema.index({ createdAt: 1, _id: 1 });

const OLDEST_FIRST = { createdAt: 1, _id: 1 } as const;
/** Part of an email, matched literally (the email is stored lower-case; so is what is looked for). */
const emailFilter = (emailContains?: string) => (emailContains ? { email: { $regex: emailContains.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') } } : {});

export class MongoUserStore implements UserStore {
  private readonly model: Model<UserDoc>;
  private readonly lock: MongoLeaseLock;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<UserDoc>('User', userSchema);
    this.lock = new MongoLeaseLock(database, undefined, undefined, () =>
      unavailable('user_busy', 'The account is being changed by another request; try again.'),
    );
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
    await this.lock.ensureIndexes();
  }

  async insert(user: UserRecord): Promise<void> {
    await mongoCall(() => this.model.create(toDoc(user)));
  }

  async findById(id: string): Promise<UserRecord | undefined> {
    const doc = await mongoCall(() => this.model.findById(id).lean<UserDoc>().exec());
    return doc ? fromDocument<UserRecord>(doc) : undefined;
  }

  async findByKey(key: string): Promise<UserRecord | undefined> {
    const doc = await mongoCall(() => this.model.findOne({ key }).lean<UserDoc>().exec());
    return doc ? fromDocument<UserRecord>(doc) : undefined;
  }

  async findOrInsert(user: UserRecord): Promise<UserRecord> {
    const existing = await this.findByKey(user.key);
    if (existing) return existing;
    try {
      await this.insert(user);
      return user;
    } catch (error) {
      // Two first sightings at once: one insert wins, the other reads it.
      if (!(error instanceof DuplicateKeyError)) throw error;
      const winner = await this.findByKey(user.key);
      if (!winner) throw error;
      return winner;
    }
  }

  async findByIds(ids: string[]): Promise<UserRecord[]> {
    if (ids.length === 0) return [];
    const docs = await mongoCall(() =>
      this.model
        .find({ _id: { $in: ids } })
        .lean<UserDoc[]>()
        .exec(),
    );
    return docs.map((doc) => fromDocument<UserRecord>(doc));
  }

  async update(id: string, patch: UserPatch): Promise<UserRecord | undefined> {
    const set: Record<string, unknown> = {};
    const unset: Record<string, ''> = {};
    for (const [field, value] of Object.entries(patch)) {
      if (value === null) unset[field] = '';
      else if (value !== undefined) set[field] = value;
    }
    // FerretDB writes the whole document back (see MongoLeaseLock), so a session
    // check's lastSeenAt racing an operator's disable could undo the disable
    // (measured: a concurrent $set lost in over half the rounds). Under the
    // user's lock the two take turns.
    return this.lock.withLock(`user:${id}`, async (assertHeld) => {
      assertHeld();
      const doc = await mongoCall(() =>
        this.model
          .findOneAndUpdate(
            { _id: id },
            { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) },
            { new: true },
          )
          .lean<UserDoc>()
          .exec(),
      );
      return doc ? fromDocument<UserRecord>(doc) : undefined;
    });
  }

  async delete(id: string): Promise<boolean> {
    const result = await mongoCall(() => this.model.deleteOne({ _id: id }).exec());
    return result.deletedCount === 1;
  }

  async list(query: { limit: number; after?: UserCursor; emailContains?: string }): Promise<UserRecord[]> {
    const { after } = query;
    const position = after ? { $or: [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, _id: { $gt: after.id } }] } : {};
    const docs = await mongoCall(() =>
      this.model
        .find({ ...emailFilter(query.emailContains), ...position })
        .sort(OLDEST_FIRST)
        .limit(query.limit)
        .lean<UserDoc[]>()
        .exec(),
    );
    return docs.map((doc) => fromDocument<UserRecord>(doc));
  }

  async count(emailContains?: string): Promise<number> {
    return mongoCall(() => this.model.countDocuments(emailFilter(emailContains)).exec());
  }

  async createdBefore(before: Date): Promise<UserRecord[]> {
    const docs = await mongoCall(() =>
      this.model
        .find({ createdAt: { $lt: before } })
        .sort(OLDEST_FIRST)
        .lean<UserDoc[]>()
        .exec(),
    );
    return docs.map((doc) => fromDocument<UserRecord>(doc));
  }
}

function toDoc(user: UserRecord): UserDoc {
  const { id, ...rest } = user;
  return { _id: id, ...rest };
}
