import { Schema, type Model } from 'mongoose';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';
import type { SessionRecord, SessionStore } from './session-store';

type SessionDoc = { _id: string } & Omit<SessionRecord, 'id'>;

const sessionSchema = new Schema<SessionDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
    kind: { type: String, enum: ['active', 'revoked', 'deleted'], required: true },
    issuedBefore: { type: Date },
  },
  { collection: 'sessions', versionKey: false, strict: 'throw' },
);
sessionSchema.index({ expiresAt: 1 });
sessionSchema.index({ userId: 1 });

export class MongoSessionStore implements SessionStore {
  private readonly model: Model<SessionDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<SessionDoc>('Session', sessionSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async put(session: SessionRecord): Promise<void> {
    const { id, ...rest } = session;
    await mongoCall(() => this.model.replaceOne({ _id: id }, { _id: id, ...rest }, { upsert: true }).exec());
  }

  async find(id: string, now: Date): Promise<SessionRecord | undefined> {
    const doc = await mongoCall(() =>
      this.model
        .findOne({ _id: id, expiresAt: { $gt: now } })
        .lean<SessionDoc>()
        .exec(),
    );
    return doc ? fromDocument<SessionRecord>(doc) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    const result = await mongoCall(() => this.model.deleteOne({ _id: id }).exec());
    return result.deletedCount === 1;
  }

  async deleteForUser(userId: string): Promise<number> {
    const result = await mongoCall(() => this.model.deleteMany({ userId, kind: { $in: ['active', 'revoked'] } }).exec());
    return result.deletedCount;
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await mongoCall(() => this.model.deleteMany({ expiresAt: { $lte: now } }).exec());
    return result.deletedCount;
  }
}
