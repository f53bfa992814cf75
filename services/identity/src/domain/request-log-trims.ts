/**
 * When an app's request log is trimmed back to its cap. Trimming costs a
 * query over the app's entries, and on a MongoDB-wire server without index
 * pushdown (FerretDB on SQLite, the test stores) a scan of every app's
 * entries: doing it per app on every flush made identity's other reads queue
 * behind it under load (docs/reliability.md). So an app is trimmed once a
 * quarter of its cap has arrived since its last trim, and at most once per
 * interval: a log may hold its cap plus what arrives in one interval, for
 * that long.
 *
 * Counts are this process's: replicas each trim what they saw arrive, so
 * every replica's share of the traffic still leads to a trim.
 */
export class RequestLogTrims {
  private readonly sinceTrim = new Map<string, { arrived: number; trimmedAt: number }>();
  private readonly every: number;

  constructor(
    cap: number,
    private readonly minIntervalMs: number,
    /** Beyond this many apps with entries not yet trimmed, the oldest counts are forgotten (their next trim comes later). */
    private readonly maxTracked = 50_000,
  ) {
    this.every = Math.max(1, Math.ceil(cap / 4));
  }

  /** Notes what arrived for each app at `nowMs`; the apps whose trim is due now (each counted as trimmed). */
  arrived(counts: ReadonlyMap<string, number>, nowMs: number): string[] {
    const due: string[] = [];
    for (const [app, count] of counts) {
      const seen = this.sinceTrim.get(app) ?? { arrived: 0, trimmedAt: Number.NEGATIVE_INFINITY };
      seen.arrived += count;
      if (seen.arrived >= this.every && nowMs - seen.trimmedAt >= this.minIntervalMs) {
        due.push(app);
        seen.arrived = 0;
        seen.trimmedAt = nowMs;
      }
      this.sinceTrim.delete(app);
      this.sinceTrim.set(app, seen);
    }
    // A Map iterates in insertion order and each app is re-inserted when it is seen: the first are the least recent.
    for (const app of this.sinceTrim.keys()) {
      if (this.sinceTrim.size <= this.maxTracked) break;
      this.sinceTrim.delete(app);
    }
    return due;
  }
}
