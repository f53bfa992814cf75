import { Schema, type Model } from 'mongoose';
import { DuplicateKeyError } from './errors';
import { progressKey, type ExerciseProgressRecord, type ExerciseProgressStore } from './exercise-progress-store';
import { mongoCall, type MongoDatabase } from './mongo-database';

type ProgressDoc = { _id: string } & ExerciseProgressRecord;

const progressSchema = new Schema<ProgressDoc>(
  {
    // progressKey: user and exercise.
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    exerciseId: { type: String, required: true },
    status: { type: String, required: true },
    // Free-form: its time, hint and facts (types.ts).
    lastAttempt: { type: Schema.Types.Mixed },
    firstAttemptAt: { type: Number, required: true },
    doneAt: { type: Number },
    doneWith: { type: String },
  },
  { collection: 'exercise_progress', versionKey: false, strict: 'throw' },
);
progressSchema.index({ userId: 1 });

export class MongoExerciseProgressStore implements ExerciseProgressStore {
  private readonly model: Model<ProgressDoc>;

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<ProgressDoc>('ExerciseProgress', progressSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  async forUsers(userIds: readonly string[]): Promise<ExerciseProgressRecord[]> {
    if (userIds.length === 0) return [];
    const docs = await mongoCall(() => this.model.find({ userId: { $in: [...userIds] } }).lean<ProgressDoc[]>());
    return docs.map(({ _id: _key, ...record }) => record);
  }

  /**
   * One replacing upsert per record, matching its document only while that is not done:
   * over a done one the upsert tries to insert the same _id and is refused as
   * a duplicate, which is the answer (another replica completed it first).
   * One at a time: FerretDB applies an update by reading and writing the
   * document back, and a batch's few changes need no more.
   */
  async save(records: readonly ExerciseProgressRecord[]): Promise<void> {
    for (const record of records) {
      const key = progressKey(record);
      try {
        await mongoCall(() => this.model.replaceOne({ _id: key, status: { $ne: 'done' } }, { _id: key, ...record }, { upsert: true }));
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
    }
  }

  async deleteForUser(userId: string): Promise<void> {
    await mongoCall(() => this.model.deleteMany({ userId }));
  }
}
