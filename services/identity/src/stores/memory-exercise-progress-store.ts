import { progressKey, type ExerciseProgressRecord, type ExerciseProgressStore } from './exercise-progress-store';

export class MemoryExerciseProgressStore implements ExerciseProgressStore {
  private readonly records = new Map<string, ExerciseProgressRecord>();

  async forUsers(userIds: readonly string[]): Promise<ExerciseProgressRecord[]> {
    const wanted = new Set(userIds);
    return [...this.records.values()].filter((record) => wanted.has(record.userId)).map((record) => structuredClone(record));
  }

  async save(records: readonly ExerciseProgressRecord[]): Promise<void> {
    for (const record of records) {
      const key = progressKey(record);
      if (this.records.get(key)?.status === 'done') continue;
      this.records.set(key, structuredClone(record));
    }
  }

  async deleteForUser(userId: string): Promise<void> {
    for (const [key, record] of this.records) if (record.userId === userId) this.records.delete(key);
  }
}
