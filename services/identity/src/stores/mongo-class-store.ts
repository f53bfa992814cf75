import { Schema, type Model } from 'mongoose';
import type { ClassRecord, ClassStore } from './class-store';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';

type ClassDoc = { _id: string } & Omit<ClassRecord, 'id'>;

const classSchema = new Schema<ClassDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    startsAt: { type: Date, required: true },
    endsAt: { type: Date, required: true },
    joinCode: { type: String, required: true },
    signUpDomain: { type: String },
    ssoGroup: { type: String },
    createdAt: { type: Date, required: true },
  },
  { collection: 'classes', versionKey: false, strict: 'throw' },
);
// A join code names one class: a clash is refused here, and classes.ts draws another.
classSchema.index({ joinCode: 1 }, { unique: true });
classSchema.index({ createdAt: -1, _id: -1 });

export class MongoClassStore implements ClassStore {
  private readonly model: Model<ClassDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<ClassDoc>('Class', classSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async insert(record: ClassRecord): Promise<void> {
    const { id, ...rest } = record;
    await mongoCall(() => this.model.create({ _id: id, ...rest }));
  }

  async findById(id: string): Promise<ClassRecord | undefined> {
    const doc = await mongoCall(() => this.model.findById(id).lean<ClassDoc>().exec());
    return doc ? fromDocument<ClassRecord>(doc) : undefined;
  }

  async findByIds(ids: readonly string[]): Promise<ClassRecord[]> {
    if (ids.length === 0) return [];
    const docs = await mongoCall(() =>
      this.model
        .find({ _id: { $in: [...ids] } })
        .lean<ClassDoc[]>()
        .exec(),
    );
    return docs.map((doc) => fromDocument<ClassRecord>(doc));
  }

  async findByJoinCode(joinCode: string): Promise<ClassRecord | undefined> {
    const doc = await mongoCall(() => this.model.findOne({ joinCode }).lean<ClassDoc>().exec());
    return doc ? fromDocument<ClassRecord>(doc) : undefined;
  }

  async list(): Promise<ClassRecord[]> {
    const docs = await mongoCall(() => this.model.find().sort({ createdAt: -1, _id: -1 }).lean<ClassDoc[]>().exec());
    return docs.map((doc) => fromDocument<ClassRecord>(doc));
  }

  async delete(id: string): Promise<boolean> {
    const result = await mongoCall(() => this.model.deleteOne({ _id: id }).exec());
    return result.deletedCount > 0;
  }
}
