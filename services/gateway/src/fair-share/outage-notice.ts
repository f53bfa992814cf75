import type { Logger } from '@sandbox/runtime';
import type { Clock } from './token-bucket';

/**
 * One warning per interval while the shared counts are unreachable: during a
 * Redis outage every request would otherwise log one, and the limits are
 * about fairness, so their absence is worth a line a minute, not a flood.
 */
export class OutageNotice {
  private quietUntil = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly everyMs = 60_000,
  ) {}

  report(error: unknown): void {
    const now = this.clock();
    if (now < this.quietUntil) return;
    this.quietUntil = now + this.everyMs;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(
      { err: reason },
      'rate limits are not enforced while Redis is unreachable: requests are let through uncounted (fail open); at most one such line a minute',
    );
  }
}
