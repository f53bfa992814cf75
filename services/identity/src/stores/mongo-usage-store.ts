import { Schema, type Model } from 'mongoose';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';
import { addToTotals, usageKey, type UsageRecord, type UsageStore, type UsageTotals } from './usage-store';

type UsageDoc = { _id: string } & UsageRecord;

const usageSchema = new Schema<UsageDoc>(
  {
    // usageKey(row): one document per (day, app, style, family), so adding is an upsert by _id.
    _id: { type: String, required: true },
    day: { type: String, required: true },
    app: { type: String, required: true },
    appId: { type: String, required: true },
    userId: { type: String, required: true },
    authStyle: { type: String, default: '' },
    routeFamily: { type: String, default: '' },
    requests: { type: Number, required: true },
    lastAt: { type: Date, required: true },
  },
  { collection: 'usage', versionKey: false, strict: 'throw' },
);
usageSchema.index({ userId: 1 });
usageSchema.index({ app: 1 });
usageSchema.index({ day: 1 });

export class MongoUsageStore implements UsageStore {
  private readonly model: Model<UsageDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<UsageDoc>('Usage', usageSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async add(increments: UsageRecord[]): Promise<void> {
    if (increments.length === 0) return;
    // $inc and $max are each atomic on the document, so gateways flushing at once add up rather than overwrite.
    const operations = increments.map((row) => ({
      updateOne: {
        filter: { _id: usageKey(row) },
        update: {
          $inc: { requests: row.requests },
          $max: { lastAt: row.lastAt },
          $setOnInsert: { day: row.day, app: row.app, appId: row.appId, userId: row.userId, authStyle: row.authStyle, routeFamily: row.routeFamily },
        },
        upsert: true,
      },
    }));
    await mongoCall(() => this.model.bulkWrite(operations, { ordered: false }));
  }

  async totalsByUser(userIds: string[]): Promise<Map<string, UsageTotals>> {
    const totals = new Map<string, UsageTotals>();
    if (userIds.length === 0) return totals;
    const docs = await mongoCall(() =>
      this.model.find({ userId: { $in: userIds } }, { userId: 1, requests: 1, lastAt: 1 }).lean<Pick<UsageRecord, 'userId' | 'requests' | 'lastAt'>[]>().exec(),
    );
    for (const doc of docs) addToTotals(totals, doc);
    return totals;
  }

  async rows(from?: string, to?: string): Promise<UsageRecord[]> {
    const day = { ...(from ? { $gte: from } : {}), ...(to ? { $lte: to } : {}) };
    const docs = await mongoCall(() => this.model.find(Object.keys(day).length ? { day } : {}).lean<UsageDoc[]>().exec());
    return docs.map((doc) => {
      const { id: _key, ...row } = fromDocument<UsageRecord & { id: string }>(doc);
      return row;
    });
  }

  async deleteForApps(apps: string[]): Promise<number> {
    if (apps.length === 0) return 0;
    const result = await mongoCall(() => this.model.deleteMany({ app: { $in: apps } }).exec());
    return result.deletedCount;
  }

  async deleteBefore(day: string): Promise<number> {
    const result = await mongoCall(() => this.model.deleteMany({ day: { $lt: day } }).exec());
    return result.deletedCount;
  }
}
