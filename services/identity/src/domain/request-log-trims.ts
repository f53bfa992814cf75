/**
 * When an app's request log is trimmed back to its cap. Trimming costs a
 * query over the app's entries, and on a MongoDB-wire server without index
 * pushdown (FerretDB on SQLite, the test stores) a scan of every app's
 * entries: doing it per app on every flush made identity's other reads queue
 * behind it under load (docs/reliability.md). So an app is trimmed once a
 * quarter of its cap has arrived since its last trim, and at most once per
 * interval: a log may hold its cap plus what arrives in one interval, for
 * that long. A trim due by count but held back by the interval is owed, and
 * paid when the interval ends even if nothing more arrives (the service asks
 * for `owedDue` at `nextOwedAt`), so a burst's excess does not stay until the
 * app's next request.
 *
 * Counts are this process's: replicas each trim what they saw arrive, so
 * every replica's share of the traffic still leads to a trim. What a replica
 * saw and forgot (fewer than a quarter of the cap since its last trim, or a
 * count lost to a restart or to the bound below) is trimmed by the next trim
 * of any replica, or when the owner reads the log (RequestLogService.list).
 */
export class RequestLogTrims {
  private readonly sinceTrim = new Map<string, { arrived: number; trimmedAt: number }>();
  /** Apps due by count but not yet by time: when each may be trimmed. */
  private readonly owed = new Map<string, number>();
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
      if (seen.arrived >= this.every) {
        if (nowMs - seen.trimmedAt >= this.minIntervalMs) {
          due.push(app);
          seen.arrived = 0;
          seen.trimmedAt = nowMs;
          this.owed.delete(app);
        } else this.owed.set(app, seen.trimmedAt + this.minIntervalMs);
      }
      this.sinceTrim.delete(app);
      this.sinceTrim.set(app, seen);
    }
    // A Map iterates in insertion order and each app is re-inserted when it is seen: the first are the least recent.
    for (const app of this.sinceTrim.keys()) {
      if (this.sinceTrim.size <= this.maxTracked) break;
      this.sinceTrim.delete(app);
      this.owed.delete(app);
    }
    return due;
  }

  /** Owes the app a trim at `atMs` (one that could not start now), unless it is owed one sooner. */
  owe(app: string, atMs: number): void {
    const owed = this.owed.get(app);
    if (owed === undefined || atMs < owed) this.owed.set(app, atMs);
  }

  /** When the next owed trim falls due; undefined when none is owed. */
  nextOwedAt(): number | undefined {
    let next: number | undefined;
    for (const at of this.owed.values()) if (next === undefined || at < next) next = at;
    return next;
  }

  /** The owed trims due at `nowMs` (each counted as trimmed). */
  owedDue(nowMs: number): string[] {
    const due: string[] = [];
    for (const [app, at] of this.owed) {
      if (at > nowMs) continue;
      due.push(app);
      this.owed.delete(app);
      const seen = this.sinceTrim.get(app);
      if (seen) {
        seen.arrived = 0;
        seen.trimmedAt = nowMs;
      }
    }
    return due;
  }
}
