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

export interface UsageStore {
  /** Adds each increment to its (day, app, style, family) row, created on first sight; requests add up, lastAt keeps the latest. */
  add(increments: UsageRecord[]): Promise<void>;
  /** Per user: all their requests, and the latest. Users with none are absent. */
  totalsByUser(userIds: string[]): Promise<Map<string, UsageTotals>>;
  /** Rows of days from..to (inclusive, either may be absent). */
  rows(from?: string, to?: string): Promise<UsageRecord[]>;
  deleteForApps(apps: string[]): Promise<number>;
  /** Rows of days before `day`. */
  deleteBefore(day: string): Promise<number>;
}

/** One row per (day, app, style, family): its key. */
export const usageKey = (row: Pick<UsageRecord, 'day' | 'app' | 'authStyle' | 'routeFamily'>) => `${row.day}|${row.app}|${row.authStyle}|${row.routeFamily}`;

/** Adds one user's row to their totals. */
export function addToTotals(totals: Map<string, UsageTotals>, row: Pick<UsageRecord, 'userId' | 'requests' | 'lastAt'>): void {
  const seen = totals.get(row.userId);
  if (!seen) totals.set(row.userId, { requests: row.requests, lastAt: row.lastAt });
  else {
    seen.requests += row.requests;
    if (row.lastAt > seen.lastAt) seen.lastAt = row.lastAt;
  }
}
