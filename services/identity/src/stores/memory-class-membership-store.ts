import { joinedOrder, membershipKey, type ClassMembershipRecord, type ClassMembershipStore } from './class-membership-store';

export class MemoryClassMembershipStore implements ClassMembershipStore {
  private readonly records = new Map<string, ClassMembershipRecord>();

  async add(record: ClassMembershipRecord): Promise<boolean> {
    const key = membershipKey(record);
    if (this.records.has(key)) return false;
    this.records.set(key, structuredClone(record));
    return true;
  }

  async remove(classId: string, userId: string): Promise<boolean> {
    return this.records.delete(membershipKey({ classId, userId }));
  }

  async forClass(classId: string): Promise<ClassMembershipRecord[]> {
    return joinedOrder(this.where((record) => record.classId === classId));
  }

  async forUser(userId: string): Promise<ClassMembershipRecord[]> {
    return joinedOrder(this.where((record) => record.userId === userId));
  }

  async count(classId: string): Promise<number> {
    return this.where((record) => record.classId === classId).length;
  }

  async countByClasses(classIds: readonly string[]): Promise<Map<string, number>> {
    const wanted = new Set(classIds);
    const counts = new Map<string, number>();
    for (const record of this.records.values()) if (wanted.has(record.classId)) counts.set(record.classId, (counts.get(record.classId) ?? 0) + 1);
    return counts;
  }

  async deleteForClass(classId: string): Promise<number> {
    return this.deleteWhere((record) => record.classId === classId);
  }

  async deleteForUser(userId: string): Promise<void> {
    this.deleteWhere((record) => record.userId === userId);
  }

  private where(test: (record: ClassMembershipRecord) => boolean): ClassMembershipRecord[] {
    return [...this.records.values()].filter(test).map((record) => structuredClone(record));
  }

  private deleteWhere(test: (record: ClassMembershipRecord) => boolean): number {
    let deleted = 0;
    for (const [key, record] of this.records) {
      if (!test(record)) continue;
      this.records.delete(key);
      deleted++;
    }
    return deleted;
  }
}
