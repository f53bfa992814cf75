import type { Logger } from '@sandbox/runtime';

export interface AccessLogLine {
  requestId: string;
  method?: string;
  /** Without the query string, which may hold an api_key. */
  path: string;
  status: number;
  ms: number;
}

/**
 * The gateway's access log: one line per finished request, up to
 * `linesPerSecond` lines in each second. Past that (a class's load test), the
 * rest are only counted, by status, and one summary line a second says how
 * many were not logged individually. A load test of tens of thousands of
 * requests a second would otherwise write as many lines, flooding a shared
 * cluster's log pipeline and spending a fifth of the gateway's CPU on them.
 * Nothing is lost that matters: failures of the gateway itself are logged on
 * their own (http/errors.ts), and each app's request log is complete up to
 * its cap.
 */
export class AccessLog {
  private linesThisSecond = 0;
  private unlogged = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    private readonly linesPerSecond: number,
  ) {
    this.timer = setInterval(() => this.nextSecond(), 1000);
    this.timer.unref();
  }

  write(line: AccessLogLine): void {
    if (this.linesThisSecond < this.linesPerSecond) {
      this.linesThisSecond++;
      this.logger.info(line, 'request');
    } else {
      this.unlogged.set(line.status, (this.unlogged.get(line.status) ?? 0) + 1);
    }
  }

  /** Writes the summary of the second just ended, if any request went unlogged in it. */
  nextSecond(): void {
    this.linesThisSecond = 0;
    if (this.unlogged.size === 0) return;
    let count = 0;
    const byStatus: Record<string, number> = {};
    for (const [status, n] of [...this.unlogged].sort((a, b) => a[0] - b[0])) {
      byStatus[status] = n;
      count += n;
    }
    this.unlogged = new Map();
    this.logger.info({ count, byStatus, limitPerSecond: this.linesPerSecond }, 'requests not logged individually');
  }

  stop(): void {
    clearInterval(this.timer);
    this.nextSecond();
  }
}
