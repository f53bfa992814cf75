import type { identity } from '@sandbox/contracts';
import type { Logger } from '@sandbox/runtime';
import type { BackendClients } from '../clients';

/**
 * Collects one entry per request made with an app's credentials and sends them
 * to identity in batches, off the request path: a slow or absent identity
 * service costs log entries, never request latency.
 */
export class RequestLogRecorder {
  private buffer: identity.RequestLogEntry[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly clients: BackendClients,
    private readonly logger: Logger,
    private readonly flushIntervalMs = 1000,
    private readonly maxBatch = 200,
    private readonly maxBuffered = 10_000,
  ) {
    this.timer = setInterval(() => void this.flush(), this.flushIntervalMs);
    this.timer.unref();
  }

  record(entry: identity.RequestLogEntry): void {
    if (this.buffer.length >= this.maxBuffered) return; // identity is away; drop rather than grow without bound
    this.buffer.push(entry);
    if (this.buffer.length >= this.maxBatch) void this.flush();
  }

  async flush(): Promise<void> {
    while (this.buffer.length) {
      const entries = this.buffer.splice(0, this.maxBatch);
      try {
        await this.clients.identity.recordRequests({ entries });
      } catch (error) {
        this.logger.warn({ dropped: entries.length, code: (error as { code?: string }).code }, 'request log batch not recorded');
        return;
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
