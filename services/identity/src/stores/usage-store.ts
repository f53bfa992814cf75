/**
 * Requests counted per UTC day, app, auth style and route family: every
 * request the gateways counted, where the request log keeps only each app's
 * newest entries. What an operator's usage export and user list read.
 */
export interface UsageRecord {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** The app's internal id. */
  app: string;
  appId: string;
  userId: string;
  authStyle: string;
  routeFamily: string;
  requests: number;
  /** The latest request counted. */
  lastAt: Date;
}

export interface UsageTotals {
  requests: number;
  lastAt: Date;
}

/**
 * A row is one (day, app, style, family). Adapters may keep a row in several
 * parts (mongo-usage-store.ts: one per identity process), but every method
 * here answers in whole rows.
 */
export interface UsageStore {
  /**
   * Adds each increment to its row, created on first sight; requests add up,
   * lastAt keeps the latest. A failure may leave part of the batch added (the
   * MongoDB adapter writes it in several commands), so a caller that retries
   * can count those rows twice: usage is a report, not a bill.
   */
  add(increments: UsageRecord[]): Promise<void>;
  /** Per user: all their requests, and the latest. Users with none are absent. */
  totalsByUser(userIds: string[]): Promise<Map<string, UsageTotals>>;
  /** The rows of days from..to (inclusive, either may be absent), in no particular order. */
  rows(from?: string, to?: string): Promise<UsageRecord[]>;
  /** How many rows are of days before `day` (a purge's dry run). */
  countBefore(day: string): Promise<number>;
  /** Deletes the rows of days before `day`; how many. */
  deleteBefore(day: string): Promise<number>;
  deleteForApps(apps: string[]): Promise<void>;
  deleteForUser(userId: string): Promise<void>;
  /** The internal id of every app that has rows, for the orphan sweep. */
  apps(): Promise<string[]>;
}

/** One row per (day, app, style, family): its key. */
export const usageKey = (row: Pick<UsageRecord, 'day' | 'app' | 'authStyle' | 'routeFamily'>) => `${row.day}|${row.app}|${row.authStyle}|${row.routeFamily}`;

/** Rows with the same key made one: requests added, the latest lastAt kept. */
export function mergeRows(rows: readonly UsageRecord[]): UsageRecord[] {
  const byKey = new Map<string, UsageRecord>();
  for (const row of rows) {
    const key = usageKey(row);
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { ...row, lastAt: new Date(row.lastAt) });
    else {
      seen.requests += row.requests;
      if (row.lastAt > seen.lastAt) seen.lastAt = new Date(row.lastAt);
    }
  }
  return [...byKey.values()];
}

/** Adds one user's row to their totals. */
export function addToTotals(totals: Map<string, UsageTotals>, row: Pick<UsageRecord, 'userId' | 'requests' | 'lastAt'>): void {
  const seen = totals.get(row.userId);
  if (!seen) totals.set(row.userId, { requests: row.requests, lastAt: row.lastAt });
  else {
    seen.requests += row.requests;
    if (row.lastAt > seen.lastAt) seen.lastAt = row.lastAt;
  }
}
