import { Schema, type Model } from 'mongoose';
import { DuplicateKeyError } from './errors';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';
import type { UserRecord, UserStore } from './user-store';

type UserDoc = { _id: string } & Omit<UserRecord, 'id'>;

const userSchema = new Schema<UserDoc>(
  {
    _id: { type: String, required: true },
    key: { type: String, required: true },
    email: { type: String, default: '' },
    provider: { type: String, required: true },
    passwordHash: { type: String },
    createdAt: { type: Date, required: true },
  },
  { collection: 'users', versionKey: false, strict: 'throw' },
);
userSchema.index({ key: 1 }, { unique: true });

export class MongoUserStore implements UserStore {
  private readonly model: Model<UserDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<UserDoc>('User', userSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
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
}

function toDoc(user: UserRecord): UserDoc {
  const { id, ...rest } = user;
  return { _id: id, ...rest };
}
