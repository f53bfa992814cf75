import { Schema, type Model } from 'mongoose';
import { joinedOrder, membershipKey, type ClassMembershipRecord, type ClassMembershipStore } from './class-membership-store';
import { DuplicateKeyError } from './errors';
import { mongoCall, type MongoDatabase } from './mongo-database';

type MembershipDoc = { _id: string } & ClassMembershipRecord;

const membershipSchema = new Schema<MembershipDoc>(
  {
    // membershipKey: class and user, so a learner is in a class once, whichever replica adds them.
    _id: { type: String, required: true },
    classId: { type: String, required: true },
    userId: { type: String, required: true },
    joinedAt: { type: Date, required: true },
  },
  { collection: 'class_memberships', versionKey: false, strict: 'throw' },
);
membershipSchema.index({ classId: 1 });
membershipSchema.index({ userId: 1 });

const record = ({ _id: _key, ...rest }: MembershipDoc): ClassMembershipRecord => rest;

export class MongoClassMembershipStore implements ClassMembershipStore {
  private readonly model: Model<MembershipDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<MembershipDoc>('ClassMembership', membershipSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async add(membership: ClassMembershipRecord): Promise<boolean> {
    try {
      await mongoCall(() => this.model.create({ _id: membershipKey(membership), ...membership }));
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  async remove(classId: string, userId: string): Promise<boolean> {
    const result = await mongoCall(() => this.model.deleteOne({ _id: membershipKey({ classId, userId }) }).exec());
    return result.deletedCount > 0;
  }

  async forClass(classId: string): Promise<ClassMembershipRecord[]> {
    return joinedOrder((await mongoCall(() => this.model.find({ classId }).lean<MembershipDoc[]>().exec())).map(record));
  }

  async forUser(userId: string): Promise<ClassMembershipRecord[]> {
    return joinedOrder((await mongoCall(() => this.model.find({ userId }).lean<MembershipDoc[]>().exec())).map(record));
  }

  async count(classId: string): Promise<number> {
    return mongoCall(() => this.model.countDocuments({ classId }).exec());
  }

  /** One read of the classes' memberships (ids only), counted here: a class holds at most a few hundred. */
  async countByClasses(classIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (classIds.length === 0) return counts;
    const docs = await mongoCall(() =>
      this.model
        .find({ classId: { $in: [...classIds] } }, { classId: 1 })
        .lean<Pick<MembershipDoc, 'classId'>[]>()
        .exec(),
    );
    for (const doc of docs) counts.set(doc.classId, (counts.get(doc.classId) ?? 0) + 1);
    return counts;
  }

  async deleteForClass(classId: string): Promise<number> {
    return (await mongoCall(() => this.model.deleteMany({ classId }).exec())).deletedCount;
  }

  async deleteForUser(userId: string): Promise<void> {
    await mongoCall(() => this.model.deleteMany({ userId }).exec());
  }
}
