import type { identity } from '@sandbox/contracts';
import type { Logger } from '@sandbox/runtime';

/**
 * An entry as recorded: its time as epoch milliseconds, formatted only if the
 * entry is sent (under load most are superseded first).
 */
export type RecordedRequest = Omit<identity.RequestLogEntry, 'time'> & { at: number };

/** Where batches go: identity's RecordRequests, in the running gateway. */
export type SendRequestLogs = (entries: identity.RequestLogEntry[]) => Promise<unknown>;

/**
 * Collects one entry per request made with an app's credentials and sends them
 * to identity once a second, off the request path: a slow or absent identity
 * service costs log entries, never request latency. Identity keeps the newest
 * `capPerApp` entries of each app, so between two flushes no more than that
 * many are kept per app here either: under load the rest would be sent and
 * stored only to be trimmed at once.
 */
export class RequestLogRecorder {
  private pending = new Map<string, RecordedRequest[]>();
  private pendingCount = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly send: SendRequestLogs,
    private readonly logger: Logger,
    private readonly capPerApp: number,
    private readonly flushIntervalMs = 1000,
    private readonly maxBatch = 200,
    private readonly maxPending = 10_000,
  ) {
    this.timer = setInterval(() => void this.flush(), this.flushIntervalMs);
    this.timer.unref();
  }

  record(entry: RecordedRequest): void {
    // Per app, by whichever name the entry has (identity resolves an App ID).
    const key = entry.app || `app_id:${entry.appId}`;
    let entries = this.pending.get(key);
    if (!entries) {
      if (this.pendingCount >= this.maxPending) return; // identity is away: drop rather than grow without bound
      entries = [];
      this.pending.set(key, entries);
    }
    entries.push(entry);
    if (entries.length > this.capPerApp) entries.shift(); // the oldest goes, as it would in identity
    else this.pendingCount++;
  }

  async flush(): Promise<void> {
    const entries = [...this.pending.values()].flat().map(({ at, ...rest }): identity.RequestLogEntry => ({ ...rest, time: new Date(at).toISOString() }));
    this.pending = new Map();
    this.pendingCount = 0;
    for (let i = 0; i < entries.length; i += this.maxBatch) {
      const batch = entries.slice(i, i + this.maxBatch);
      try {
        await this.send(batch);
      } catch (error) {
        this.logger.warn({ dropped: entries.length - i, code: (error as { code?: string }).code }, 'request log batch not recorded');
        return;
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
