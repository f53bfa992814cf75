import type { AuditCursor, AuditRecord, AuditStore } from './audit-store';

const newestFirst = (a: AuditRecord, b: AuditRecord) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export class MemoryAuditStore implements AuditStore {
  private readonly entries: AuditRecord[] = [];

  async append(entry: AuditRecord): Promise<void> {
    this.entries.push(structuredClone(entry));
  }

  async list(limit: number, after?: AuditCursor): Promise<AuditRecord[]> {
    return [...this.entries]
      .sort(newestFirst)
      .filter((entry) => !after || entry.at < after.at || (entry.at.getTime() === after.at.getTime() && entry.id < after.id))
      .slice(0, limit)
      .map((entry) => structuredClone(entry));
  }
}
