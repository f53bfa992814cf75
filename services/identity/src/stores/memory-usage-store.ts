import { addToTotals, mergeRows, usageKey, type UsageRecord, type UsageStore, type UsageTotals } from './usage-store';

export class MemoryUsageStore implements UsageStore {
  private readonly rowsByKey = new Map<string, UsageRecord>();

  async add(increments: UsageRecord[]): Promise<void> {
    for (const increment of mergeRows(increments)) {
      const key = usageKey(increment);
      const row = this.rowsByKey.get(key);
      if (!row) this.rowsByKey.set(key, increment);
      else {
        row.requests += increment.requests;
        if (increment.lastAt > row.lastAt) row.lastAt = increment.lastAt;
      }
    }
  }

  async totalsByUser(userIds: string[]): Promise<Map<string, UsageTotals>> {
    const wanted = new Set(userIds);
    const totals = new Map<string, UsageTotals>();
    for (const row of this.rowsByKey.values()) if (wanted.has(row.userId)) addToTotals(totals, { ...row, lastAt: new Date(row.lastAt) });
    return totals;
  }

  async rows(from?: string, to?: string): Promise<UsageRecord[]> {
    return [...this.rowsByKey.values()]
      .filter((row) => (!from || row.day >= from) && (!to || row.day <= to))
      .map((row) => ({ ...row, lastAt: new Date(row.lastAt) }));
  }

  async countBefore(day: string): Promise<number> {
    return [...this.rowsByKey.values()].filter((row) => row.day < day).length;
  }

  async deleteBefore(day: string): Promise<number> {
    return this.deleteWhere((row) => row.day < day);
  }

  async deleteForApps(apps: string[]): Promise<void> {
    const gone = new Set(apps);
    this.deleteWhere((row) => gone.has(row.app));
  }

  async deleteForUser(userId: string): Promise<void> {
    this.deleteWhere((row) => row.userId === userId);
  }

  async apps(): Promise<string[]> {
    return [...new Set([...this.rowsByKey.values()].map((row) => row.app))];
  }

  private deleteWhere(predicate: (row: UsageRecord) => boolean): number {
    let deleted = 0;
    for (const [key, row] of this.rowsByKey) {
      if (predicate(row)) {
        this.rowsByKey.delete(key);
        deleted++;
      }
    }
    return deleted;
  }
}
