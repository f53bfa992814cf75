import { randomBytes } from 'node:crypto';
import { Schema, type Model } from 'mongoose';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';
import { addToTotals, mergeRows, usageKey, type UsageRecord, type UsageStore, type UsageTotals } from './usage-store';

type UsageDoc = { _id: string } & UsageRecord;
type RowKey = Pick<UsageRecord, 'day' | 'app' | 'authStyle' | 'routeFamily'>;

const usageSchema = new Schema<UsageDoc>(
  {
    // usageKey(row) + "|" + the writing process's id: see MongoUsageStore.
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

/**
 * At most this many upserts in one `update` command. FerretDB 1.24 keeps the
 * PostgreSQL connection of every statement of a command that matched a
 * document until the whole command ends (its update handler defers each
 * statement's query close to the end of the loop), and its pool holds 50: one
 * flush of 50 existing rows took every connection and waited for one more,
 * wedging the server for every client. Eight a command, one command at a
 * time per process, leaves the pool room for everyone else.
 */
const UPSERTS_PER_COMMAND = 8;

const ROW_KEY_FIELDS = { day: 1, app: 1, authStyle: 1, routeFamily: 1 } as const;

/**
 * Each process adds only to documents of its own, one batch at a time, and a
 * row is the sum of its documents (one per process that counted it).
 *
 * Why: `$inc` is not atomic on FerretDB, which applies an update by reading
 * the document and writing it back (see MongoLeaseLock). Measured on FerretDB
 * 1.24 on PostgreSQL: 50 concurrent `$inc` of one document added 5, and 50
 * concurrent upserts of a new one added 14, two failing as duplicates. Two
 * gateways flushing to two identity replicas at once would lose counts. A
 * document only one process writes, and only one write at a time, cannot be
 * raced; the cost is a document per row per identity process (a restart
 * starts new ones), added up when read.
 */
export class MongoUsageStore implements UsageStore {
  private readonly model: Model<UsageDoc>;
  /** This process's documents: random, so replicas (and a restarted process) never share one. */
  private readonly writer = randomBytes(6).toString('hex');
  /** The batch being written; the next waits for it. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<UsageDoc>('Usage', usageSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  add(increments: UsageRecord[]): Promise<void> {
    if (increments.length === 0) return Promise.resolve();
    // One operation per row, so no document is written twice in one batch.
    const operations = mergeRows(increments).map((row) => ({
      updateOne: {
        filter: { _id: `${usageKey(row)}|${this.writer}` },
        update: {
          $inc: { requests: row.requests },
          $max: { lastAt: row.lastAt },
          $setOnInsert: { day: row.day, app: row.app, appId: row.appId, userId: row.userId, authStyle: row.authStyle, routeFamily: row.routeFamily },
        },
        upsert: true,
      },
    }));
    const write = this.writing.then(async () => {
      for (let i = 0; i < operations.length; i += UPSERTS_PER_COMMAND) {
        const chunk = operations.slice(i, i + UPSERTS_PER_COMMAND);
        await mongoCall(() => this.model.bulkWrite(chunk, { ordered: false }));
      }
    });
    // A failed batch is its caller's to retry (the gateway keeps its counts); the next batch goes ahead.
    this.writing = write.catch(() => undefined);
    return write.then(() => undefined);
  }

  async totalsByUser(userIds: string[]): Promise<Map<string, UsageTotals>> {
    const totals = new Map<string, UsageTotals>();
    if (userIds.length === 0) return totals;
    const docs = await mongoCall(() =>
      this.model
        .find({ userId: { $in: userIds } }, { userId: 1, requests: 1, lastAt: 1 })
        .lean<Pick<UsageRecord, 'userId' | 'requests' | 'lastAt'>[]>()
        .exec(),
    );
    for (const doc of docs) addToTotals(totals, doc);
    return totals;
  }

  async rows(from?: string, to?: string): Promise<UsageRecord[]> {
    const docs = await mongoCall(() => this.model.find(dayFilter(from, to)).lean<UsageDoc[]>().exec());
    return mergeRows(
      docs.map((doc) => {
        const { id: _id, ...row } = fromDocument<UsageRecord & { id: string }>(doc);
        return row;
      }),
    );
  }

  async countBefore(day: string): Promise<number> {
    return (await this.rowKeysBefore(day)).size;
  }

  async deleteBefore(day: string): Promise<number> {
    const rows = await this.rowKeysBefore(day);
    await mongoCall(() => this.model.deleteMany({ day: { $lt: day } }).exec());
    return rows.size;
  }

  async deleteForApps(apps: string[]): Promise<void> {
    if (apps.length === 0) return;
    await mongoCall(() => this.model.deleteMany({ app: { $in: apps } }).exec());
  }

  async deleteForUser(userId: string): Promise<void> {
    await mongoCall(() => this.model.deleteMany({ userId }).exec());
  }

  async apps(): Promise<string[]> {
    const ids = await mongoCall(() => this.model.distinct('app').exec());
    return ids.map(String);
  }

  private async rowKeysBefore(day: string): Promise<Set<string>> {
    const docs = await mongoCall(() =>
      this.model
        .find({ day: { $lt: day } }, ROW_KEY_FIELDS)
        .lean<RowKey[]>()
        .exec(),
    );
    return new Set(docs.map(usageKey));
  }
}

function dayFilter(from?: string, to?: string): Record<string, unknown> {
  const day = { ...(from ? { $gte: from } : {}), ...(to ? { $lte: to } : {}) };
  return Object.keys(day).length ? { day } : {};
}
