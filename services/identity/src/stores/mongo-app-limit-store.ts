import { Schema, type Model } from 'mongoose';
import type { AppLimitRecord, AppLimitStore } from './app-limit-store';
import { DuplicateKeyError } from './errors';
import { mongoCall, type MongoDatabase } from './mongo-database';

type AppLimitDoc = { _id: string } & Omit<AppLimitRecord, 'appId'>;

const appLimitSchema = new Schema<AppLimitDoc>(
  {
    // The App ID.
    _id: { type: String, required: true },
    exempt: { type: Boolean, required: true },
    perSecond: { type: Number, default: 0 },
    burst: { type: Number, default: 0 },
    setAt: { type: Date, required: true },
    setBy: { kind: { type: String, required: true }, id: { type: String, required: true }, email: { type: String, default: '' }, statedUser: { type: String } },
  },
  { collection: 'app_limits', versionKey: false, strict: 'throw', minimize: false },
);

const toRecord = ({ _id, ...rest }: AppLimitDoc): AppLimitRecord => ({ appId: _id, ...rest });

export class MongoAppLimitStore implements AppLimitStore {
  private readonly model: Model<AppLimitDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<AppLimitDoc>('AppLimit', appLimitSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async put(limit: AppLimitRecord): Promise<void> {
    const { appId, ...rest } = limit;
    const replace = () => mongoCall(() => this.model.replaceOne({ _id: appId }, { _id: appId, ...rest }, { upsert: true }).exec());
    try {
      await replace();
    } catch (error) {
      // Two first settings of one app at once: both upserts insert, one loses on _id. Its replace now finds the document.
      if (!(error instanceof DuplicateKeyError)) throw error;
      await replace();
    }
  }

  async delete(appId: string): Promise<boolean> {
    const result = await mongoCall(() => this.model.deleteOne({ _id: appId }).exec());
    return result.deletedCount === 1;
  }

  async list(): Promise<AppLimitRecord[]> {
    const docs = await mongoCall(() => this.model.find({}).lean<AppLimitDoc[]>().exec());
    return docs.map(toRecord);
  }

  async deleteForAppIds(appIds: string[]): Promise<number> {
    if (appIds.length === 0) return 0;
    const result = await mongoCall(() => this.model.deleteMany({ _id: { $in: appIds } }).exec());
    return result.deletedCount;
  }
}
