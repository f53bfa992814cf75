import type { Logger } from './logger';
import { withTimeout } from './timeout';

/** Something a service needs to do its work, such as its database. */
export interface Dependency {
  /** Health name, e.g. "mongodb" or "redis". */
  name: string;
  /** Resolves when reachable; rejects (or times out) when not. */
  ping(): Promise<void>;
}

/**
 * Pings each dependency on an interval and reports changes, so health answers
 * from memory (cheap for probes) but is never more than one interval stale.
 */
export class DependencyMonitor {
  private readonly up = new Map<string, boolean>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dependencies: Dependency[],
    private readonly onChange: (name: string, up: boolean) => void,
    private readonly logger: Logger,
    private readonly intervalMs = 1000,
    private readonly timeoutMs = 800,
  ) {}

  allUp(): boolean {
    return this.dependencies.every((d) => this.up.get(d.name) === true);
  }

  /** Checks everything once, then keeps checking in the background. */
  async start(): Promise<void> {
    await this.checkAll();
    this.timer = setInterval(() => void this.checkAll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async checkAll(): Promise<void> {
    await Promise.all(this.dependencies.map((d) => this.check(d)));
  }

  private async check(dependency: Dependency): Promise<void> {
    let up = true;
    try {
      await withTimeout(dependency.ping(), this.timeoutMs, `no answer within ${this.timeoutMs} ms`);
    } catch (error) {
      up = false;
      if (this.up.get(dependency.name) !== false) {
        this.logger.warn({ dependency: dependency.name, err: (error as Error).message }, 'dependency down');
      }
    }
    if (this.up.get(dependency.name) !== up) {
      if (up && this.up.has(dependency.name)) this.logger.info({ dependency: dependency.name }, 'dependency back');
      this.up.set(dependency.name, up);
      this.onChange(dependency.name, up);
    }
  }
}
