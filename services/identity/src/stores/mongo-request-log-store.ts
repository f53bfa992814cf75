import { Schema, type Model } from 'mongoose';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';
import type { LogCursor, RequestLogRecord, RequestLogStore } from './request-log-store';

type LogDoc = { _id: string } & Omit<RequestLogRecord, 'id'>;

const logSchema = new Schema<LogDoc>(
  {
    _id: { type: String, required: true },
    app: { type: String, required: true },
    time: { type: Date, required: true },
    method: { type: String, required: true },
    path: { type: String, required: true },
    status: { type: Number, required: true },
    authStyle: { type: String, default: '' },
    failure: { type: String, default: '' },
    latencyMs: { type: Number, required: true },
    requestId: { type: String, default: '' },
  },
  { collection: 'request_logs', versionKey: false, strict: 'throw' },
);
logSchema.index({ app: 1, time: -1, _id: -1 });

const NEWEST_FIRST = { time: -1, _id: -1 } as const;

/** Strictly after the cursor in newest-first order. */
const olderThan = (cursor: LogCursor) => ({
  $or: [{ time: { $lt: cursor.time } }, { time: cursor.time, _id: { $lt: cursor.id } }],
});

export class MongoRequestLogStore implements RequestLogStore {
  private readonly model: Model<LogDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<LogDoc>('RequestLog', logSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async append(entries: RequestLogRecord[]): Promise<void> {
    if (entries.length === 0) return;
    const docs = entries.map(({ id, ...rest }) => ({ _id: id, ...rest }));
    await mongoCall(() => this.model.insertMany(docs, { ordered: false, lean: true }));
  }

  async trim(app: string, cap: number): Promise<number> {
    // The newest entry beyond the cap (none: nothing to trim); it and everything older goes.
    // Asked directly rather than after a count, which would be a second pass over the app's entries.
    const [boundary] = await mongoCall(() =>
      this.model.find({ app }, { _id: 1, time: 1 }).sort(NEWEST_FIRST).skip(cap).limit(1).lean<{ _id: string; time: Date }[]>().exec(),
    );
    if (!boundary) return 0;
    const result = await mongoCall(() =>
      this.model.deleteMany({ app, $or: [{ time: { $lt: boundary.time } }, { time: boundary.time, _id: { $lte: boundary._id } }] }).exec(),
    );
    return result.deletedCount;
  }

  async list(app: string, limit: number, after?: LogCursor): Promise<RequestLogRecord[]> {
    const filter = after ? { app, ...olderThan(after) } : { app };
    const docs = await mongoCall(() => this.model.find(filter).sort(NEWEST_FIRST).limit(limit).lean<LogDoc[]>().exec());
    return docs.map((doc) => fromDocument<RequestLogRecord>(doc));
  }

  async count(app: string): Promise<number> {
    return mongoCall(() => this.model.countDocuments({ app }).exec());
  }

  async deleteForApps(apps: string[]): Promise<number> {
    if (apps.length === 0) return 0;
    const result = await mongoCall(() => this.model.deleteMany({ app: { $in: apps } }).exec());
    return result.deletedCount;
  }

  async deleteOlderThan(before: Date): Promise<number> {
    const result = await mongoCall(() => this.model.deleteMany({ time: { $lt: before } }).exec());
    return result.deletedCount;
  }

  async appIds(): Promise<string[]> {
    const ids = await mongoCall(() => this.model.distinct('app').exec());
    return ids.map(String);
  }
}
