import { DuplicateKeyError } from './errors';
import type { ClassRecord, ClassStore } from './class-store';

export class MemoryClassStore implements ClassStore {
  private readonly byId = new Map<string, ClassRecord>();

  async insert(record: ClassRecord): Promise<void> {
    if ([...this.byId.values()].some((other) => other.joinCode === record.joinCode)) throw new DuplicateKeyError('joinCode');
    if (this.byId.has(record.id)) throw new DuplicateKeyError('_id');
    this.byId.set(record.id, structuredClone(record));
  }

  async findById(id: string): Promise<ClassRecord | undefined> {
    const found = this.byId.get(id);
    return found && structuredClone(found);
  }

  async findByIds(ids: readonly string[]): Promise<ClassRecord[]> {
    return ids.flatMap((id) => (this.byId.has(id) ? [structuredClone(this.byId.get(id)!)] : []));
  }

  async findByJoinCode(joinCode: string): Promise<ClassRecord | undefined> {
    const found = [...this.byId.values()].find((record) => record.joinCode === joinCode);
    return found && structuredClone(found);
  }

  async list(): Promise<ClassRecord[]> {
    return [...this.byId.values()]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((record) => structuredClone(record));
  }

  async delete(id: string): Promise<boolean> {
    return this.byId.delete(id);
  }
}
