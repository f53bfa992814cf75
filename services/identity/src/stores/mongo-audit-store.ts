import { Schema, type Model } from 'mongoose';
import type { AuditCursor, AuditRecord, AuditStore } from './audit-store';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';

type AuditDoc = { _id: string } & Omit<AuditRecord, 'id'>;

const auditSchema = new Schema<AuditDoc>(
  {
    _id: { type: String, required: true },
    at: { type: Date, required: true },
    actor: {
      kind: { type: String, enum: ['session', 'cli'], required: true },
      id: { type: String, required: true },
      email: { type: String, default: '' },
      statedUser: { type: String },
    },
    action: { type: String, required: true },
    targetUserId: { type: String, default: '' },
    targetEmail: { type: String, default: '' },
    detail: { type: String, default: '' },
  },
  { collection: 'audit', versionKey: false, strict: 'throw', minimize: false },
);
auditSchema.index({ at: -1, _id: -1 });

export class MongoAuditStore implements AuditStore {
  private readonly model: Model<AuditDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<AuditDoc>('Audit', auditSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async append(entry: AuditRecord): Promise<void> {
    const { id, ...rest } = entry;
    await mongoCall(() => this.model.create({ _id: id, ...rest }));
  }

  async list(limit: number, after?: AuditCursor): Promise<AuditRecord[]> {
    const filter = after ? { $or: [{ at: { $lt: after.at } }, { at: after.at, _id: { $lt: after.id } }] } : {};
    const docs = await mongoCall(() => this.model.find(filter).sort({ at: -1, _id: -1 }).limit(limit).lean<AuditDoc[]>().exec());
    return docs.map((doc) => fromDocument<AuditRecord>(doc));
  }
}
