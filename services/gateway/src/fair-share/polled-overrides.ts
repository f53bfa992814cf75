import type { identity } from '@sandbox/contracts';
import type { Logger } from '@sandbox/runtime';
import type { AppLimit, LimitOverrides } from './limit-overrides';
import type { Clock } from './token-bucket';

/** Identity's ListAppLimits: every app limit an operator set. */
export type ListAppLimits = () => Promise<identity.AppLimit[]>;

/** Runs `run` after `ms`; the answer cancels it. A test passes one it fires itself. */
export type Schedule = (run: () => void, ms: number) => () => void;

const realSchedule: Schedule = (run, ms) => {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * The app limits operators set through the admin API (PUT
 * /api/admin/apps/:appId/limit), as identity keeps them: fetched in the
 * background every `intervalMs` (a second) and answered from memory, so a
 * setting reaches every gateway within about a second and no request waits
 * on identity. While identity does not answer, the last copy it gave stays
 * in force (a load test's exemption must not lapse because identity
 * restarted), with a warning at most once a minute; until a first copy
 * arrives there are none. A poll starts only once the previous one ended.
 */
export class PolledOverrides implements LimitOverrides {
  private limits = new Map<string, AppLimit>();
  private cancel: (() => void) | undefined;
  private stopped = false;
  private quietUntil = 0;
  private failing = false;

  constructor(
    private readonly list: ListAppLimits,
    private readonly logger: Logger,
    private readonly options: { intervalMs?: number; schedule?: Schedule; clock?: Clock } = {},
  ) {}

  of(appId: string): AppLimit | undefined {
    return this.limits.get(appId);
  }

  /** Starts polling: the first fetch at once. */
  start(): void {
    void this.poll();
  }

  /** One fetch; the next is scheduled when it ends, unless stopped. */
  async poll(): Promise<void> {
    try {
      const fetched = await this.list();
      const limits = new Map<string, AppLimit>();
      for (const limit of fetched) {
        if (limit.exempt) limits.set(limit.appId, { kind: 'exempt' });
        // A rate or burst of 0 would be a bucket that never fills: not one identity sets, and not one to enforce.
        else if (limit.perSecond > 0 && limit.burst > 0) limits.set(limit.appId, { kind: 'rate', perSecond: limit.perSecond, burst: limit.burst });
      }
      this.limits = limits;
      if (this.failing) this.logger.info({ limits: this.limits.size }, 'app limits fetched from identity again');
      this.failing = false;
    } catch (error) {
      this.failing = true;
      const now = (this.options.clock ?? Date.now)();
      if (now >= this.quietUntil) {
        this.quietUntil = now + 60_000;
        this.logger.warn(
          { err: error instanceof Error ? error.message : String(error), kept: this.limits.size },
          'app limits not fetched from identity: the last ones fetched stay in force; at most one such line a minute',
        );
      }
    } finally {
      if (!this.stopped) this.cancel = (this.options.schedule ?? realSchedule)(() => void this.poll(), this.options.intervalMs ?? 1000);
    }
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }
}
