import type { ExerciseProgress } from '../domain/exercises/types';

/** One learner's progress on one exercise. */
export interface ExerciseProgressRecord extends ExerciseProgress {
  userId: string;
  exerciseId: string;
}

/**
 * Where each learner stands on each exercise (docs/exercises.md). Written
 * from the request-log batches every identity replica stores, so two
 * replicas may judge the same learner at once: a record that is done is never
 * made attempted again, whichever replica writes last.
 */
export interface ExerciseProgressStore {
  /** Every record of these users. */
  forUsers(userIds: readonly string[]): Promise<ExerciseProgressRecord[]>;
  /** Each record as the new state of its (user, exercise), except over one already done. */
  save(records: readonly ExerciseProgressRecord[]): Promise<void>;
  deleteForUser(userId: string): Promise<void>;
}

export const progressKey = (record: Pick<ExerciseProgressRecord, 'userId' | 'exerciseId'>) => `${record.userId}|${record.exerciseId}`;
