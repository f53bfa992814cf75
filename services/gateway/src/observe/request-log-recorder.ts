import type { identity } from '@sandbox/contracts';
import type { Logger } from '@sandbox/runtime';
import { UsageCounts } from './usage-counts';

/**
 * An entry as recorded: its time as epoch milliseconds, formatted only if the
 * entry is sent (under load most are superseded first), and the route family
 * it is counted under for usage (the family its row declares).
 */
export type RecordedRequest = Omit<identity.RequestLogEntry, 'time'> & { at: number; routeFamily: string };

/**
 * Entries, and counts, per RecordRequests call: as many as identity takes in
 * one (its LIMITS.recordBatchMax). Each call costs identity's store the same
 * few operations whatever it carries (the apps it names, one insert, the
 * usage upserts), so a flush is as few calls as the limit allows: at 200 a
 * call, one busy app's second of entries took five. A thousand entries are
 * about 0.2 MB (1.5 MB with every path and failure at its longest), within a
 * gRPC message.
 */
export const RECORD_BATCH_MAX = 1000;

/** Where batches go: identity's RecordRequests, in the running gateway. */
export type SendRequestLogs = (entries: identity.RequestLogEntry[], usage: identity.UsageCount[]) => Promise<unknown>;

/**
 * Collects one entry per request made with an app's credentials and sends them
 * to identity once a second, off the request path: a slow or absent identity
 * service costs log entries, never request latency. Identity keeps the newest
 * `capPerApp` entries of each app, so between two flushes no more than that
 * many are kept per app here either: under load the rest would be sent and
 * stored only to be trimmed at once.
 *
 * Every request is also counted for usage (usage-counts.ts) and the counts
 * travel with the entries; those are never superseded, so counts that were
 * not delivered are kept for the next flush (within their bound). A flush
 * whose answer was lost after identity stored it may so be counted twice:
 * usage is at least once, the log at most once.
 *
 * One flush at a time: a tick that finds one still sending is skipped, and
 * `stop()` waits for the one under way before it sends what is left, so a
 * clean stop delivers everything held (docs/state.md).
 */
export class RequestLogRecorder {
  private pending = new Map<string, RecordedRequest[]>();
  private pendingCount = 0;
  private readonly usage: UsageCounts;
  private readonly timer: NodeJS.Timeout;
  /** The flush under way, or the last one (settled); never rejects. */
  private flushing: Promise<void> = Promise.resolve();
  private sending = false;

  constructor(
    private readonly send: SendRequestLogs,
    private readonly logger: Logger,
    private readonly capPerApp: number,
    private readonly flushIntervalMs = 1000,
    private readonly maxBatch = RECORD_BATCH_MAX,
    private readonly maxPending = 10_000,
    maxUsageKeys?: number,
  ) {
    this.usage = new UsageCounts(maxUsageKeys);
    this.timer = setInterval(() => {
      if (!this.sending) void this.flush();
    }, this.flushIntervalMs);
    this.timer.unref();
  }

  record(entry: RecordedRequest): void {
    this.usage.count(entry);
    // Per app, by whichever name the entry has (identity resolves an App ID).
    const key = entry.app || `app_id:${entry.appId}`;
    let entries = this.pending.get(key);
    if (!entries) {
      if (this.pendingCount >= this.maxPending) return; // identity is away: drop rather than grow without bound
      entries = [];
      this.pending.set(key, entries);
    }
    entries.push(entry);
    if (entries.length > this.capPerApp)
      entries.shift(); // the oldest goes, as it would in identity
    else this.pendingCount++;
  }

  /** Sends what is held now, after the flush under way (if any) has ended. */
  flush(): Promise<void> {
    const next = this.flushing.then(async () => {
      this.sending = true;
      try {
        await this.sendHeld();
      } finally {
        this.sending = false;
      }
    });
    this.flushing = next.catch(() => undefined);
    return next;
  }

  private async sendHeld(): Promise<void> {
    const entries = [...this.pending.values()]
      .flat()
      .map(({ at, routeFamily: _family, ...rest }): identity.RequestLogEntry => ({ ...rest, time: new Date(at).toISOString() }));
    this.pending = new Map();
    this.pendingCount = 0;
    const { usage, dropped } = this.usage.take();
    if (dropped)
      this.logger.warn({ dropped, kept: usage.length }, 'usage counts not kept: identity has not taken them for a while and the bound of keys was reached');
    // Counts go with the entries, a batch's worth at a time, so that no message grows past gRPC's size limit.
    const batches = Math.max(Math.ceil(entries.length / this.maxBatch), Math.ceil(usage.length / this.maxBatch));
    for (let b = 0; b < batches; b++) {
      const [from, to] = [b * this.maxBatch, (b + 1) * this.maxBatch];
      try {
        await this.send(entries.slice(from, to), usage.slice(from, to));
      } catch (error) {
        this.usage.giveBack(usage.slice(from));
        this.logger.warn(
          { dropped: Math.max(0, entries.length - from), kept: Math.max(0, usage.length - from), code: (error as { code?: string }).code },
          'request log batch not recorded',
        );
        return;
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
