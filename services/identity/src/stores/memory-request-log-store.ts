import type { LogCursor, RequestLogRecord, RequestLogStore } from './request-log-store';

/** Newest first: time descending, then id descending. */
export function compareNewestFirst(a: { time: Date; id: string }, b: { time: Date; id: string }): number {
  return b.time.getTime() - a.time.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Records are flat but for their Date: a spread copy is enough, and far cheaper than structuredClone. */
const copy = (entry: RequestLogRecord): RequestLogRecord => ({ ...entry, time: new Date(entry.time.getTime()) });

export class MemoryRequestLogStore implements RequestLogStore {
  private readonly byApp = new Map<string, RequestLogRecord[]>();

  async append(entries: RequestLogRecord[]): Promise<void> {
    for (const entry of entries) {
      const list = this.byApp.get(entry.app) ?? [];
      list.push(copy(entry));
      this.byApp.set(entry.app, list);
    }
  }

  async trim(app: string, cap: number): Promise<number> {
    const list = this.byApp.get(app);
    if (!list || list.length <= cap) return 0;
    list.sort(compareNewestFirst);
    const removed = list.length - cap;
    list.length = cap;
    return removed;
  }

  async list(app: string, limit: number, after?: LogCursor): Promise<RequestLogRecord[]> {
    const sorted = [...(this.byApp.get(app) ?? [])].sort(compareNewestFirst);
    const start = after ? sorted.filter((entry) => compareNewestFirst(after, entry) < 0) : sorted;
    return start.slice(0, limit).map(copy);
  }

  async count(app: string): Promise<number> {
    return this.byApp.get(app)?.length ?? 0;
  }

  async deleteForApps(apps: string[]): Promise<number> {
    let deleted = 0;
    for (const app of apps) {
      deleted += this.byApp.get(app)?.length ?? 0;
      this.byApp.delete(app);
    }
    return deleted;
  }

  async deleteOlderThan(before: Date): Promise<number> {
    let deleted = 0;
    for (const [app, list] of this.byApp) {
      const kept = list.filter((entry) => entry.time >= before);
      deleted += list.length - kept.length;
      if (kept.length) this.byApp.set(app, kept);
      else this.byApp.delete(app);
    }
    return deleted;
  }

  async appIds(): Promise<string[]> {
    return [...this.byApp.keys()];
  }
}
