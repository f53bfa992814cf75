import { randomBytes } from 'node:crypto';
import { Schema, type Model } from 'mongoose';
import type { LoginAttempts, LoginAttemptStore } from './login-attempt-store';
import { mongoCall, type MongoDatabase } from './mongo-database';

type FailureDoc = { _id: string; key: string; at: Date };

const failureSchema = new Schema<FailureDoc>(
  {
    _id: { type: String, required: true },
    key: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'login_failures', versionKey: false, strict: 'throw' },
);
failureSchema.index({ key: 1, at: -1 });
failureSchema.index({ at: 1 });

export class MongoLoginAttemptStore implements LoginAttemptStore {
  private readonly model: Model<FailureDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<FailureDoc>('LoginFailure', failureSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async get(key: string, windowStart: Date): Promise<LoginAttempts | undefined> {
    const filter = { key, at: { $gte: windowStart } };
    const [failures, latest] = await Promise.all([
      mongoCall(() => this.model.countDocuments(filter).exec()),
      mongoCall(() => this.model.findOne(filter, { at: 1 }).sort({ at: -1 }).lean<{ at: Date }>().exec()),
    ]);
    return failures > 0 && latest ? { failures, lastFailureAt: latest.at } : undefined;
  }

  async recordFailure(key: string, at: Date): Promise<void> {
    await mongoCall(() => this.model.create({ _id: randomBytes(12).toString('hex'), key, at }));
  }

  async clear(key: string): Promise<void> {
    await mongoCall(() => this.model.deleteMany({ key }).exec());
  }

  async deleteOlderThan(cutoff: Date): Promise<number> {
    const result = await mongoCall(() => this.model.deleteMany({ at: { $lt: cutoff } }).exec());
    return result.deletedCount;
  }
}
