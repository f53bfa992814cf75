import type { Logger } from './logger';

/** Something a service needs to do its work, such as its database. */
export interface Dependency {
  /** Health name, e.g. "mongodb" or "redis". */
  name: string;
  /** Resolves when reachable; rejects (or never settles) when not. */
  ping(): Promise<void>;
}

/** A dependency's verdict, as health reports it. */
export interface DependencyState {
  up: boolean;
  /** When the verdict was last confirmed (ms since the epoch): the last answer while up, the last failed check while down. */
  checkedAt: number;
  /** Why it is down. */
  reason?: string;
}

/**
 * How long a dependency may go without answering at all (late answers
 * count) before it counts as down, in check intervals. A store that refuses
 * (its client says it is unreachable) is down at the first check; one that
 * is merely slow, as a store or a process on a saturated machine is, is not:
 * with the defaults (1 s interval, 800 ms timeout) a store that stops
 * answering altogether is down within 5 s of its last answer plus one check,
 * 6.8 s at most.
 */
export const SILENT_INTERVALS_TO_DOWN = 5;

/**
 * Failures that say "no answer in time", not "unreachable": the Redis
 * client's own command timeout (REDIS_FAIL_FAST) and the MongoDB driver's
 * socket and operation timeouts. A busy machine produces these (a timer can
 * fire before the answer waiting on the socket is read); a stopped store
 * produces refusals (connection refused or reset, no server to select).
 */
const NO_ANSWER_MESSAGES = [/^Command timed out/];
const NO_ANSWER_ERRORS = new Set(['MongoNetworkTimeoutError', 'MongoOperationTimeoutError', 'MongoWaitQueueTimeoutError']);
export function isNoAnswer(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown } | undefined;
  if (typeof e?.name === 'string' && NO_ANSWER_ERRORS.has(e.name)) return true;
  return typeof e?.message === 'string' && NO_ANSWER_MESSAGES.some((pattern) => pattern.test(e.message as string));
}

/**
 * Resolves true if `work` settles within `ms`, false otherwise. When the
 * timer fires, one turn of I/O is let through first: after the event loop
 * was blocked for longer than `ms`, timers run before the sockets are read,
 * and an answer that had arrived in time must not count as late.
 */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const done = () => {
      settled = true;
      clearTimeout(timer);
      resolve(true);
    };
    work.then(done, done);
    const timer = setTimeout(() => setImmediate(() => resolve(settled)), ms);
  });
}

interface Watched {
  dependency: Dependency;
  state?: DependencyState;
  /** The ping still awaited, if any: a new check waits for it instead of sending another. */
  pending?: Promise<void>;
  /** When the dependency last answered (a refusal is an answer too: it ends a silence). */
  lastAnswerAt?: number;
  /** Whether this silence was already logged. */
  silenceLogged: boolean;
}

/**
 * Pings each dependency on an interval and reports changes, so health answers
 * from memory (cheap for probes) and says how old each verdict is. A refusal
 * is down at once; silence is down only when it lasts (`silenceMs`), so a
 * busy machine does not make a service say its store is down
 * (docs/deployment.md, Health).
 */
export class DependencyMonitor {
  private readonly watched: Watched[];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    dependencies: Dependency[],
    private readonly onChange: (name: string, up: boolean) => void,
    private readonly logger: Logger,
    private readonly intervalMs = 1000,
    private readonly timeoutMs = 800,
    private readonly silenceMs = SILENT_INTERVALS_TO_DOWN * intervalMs,
  ) {
    this.watched = dependencies.map((dependency) => ({ dependency, silenceLogged: false }));
  }

  allUp(): boolean {
    return this.watched.every((w) => w.state?.up === true);
  }

  /** Each dependency's current verdict, by name (none before its first check). */
  states(): Record<string, DependencyState> {
    return Object.fromEntries(this.watched.filter((w) => w.state).map((w) => [w.dependency.name, { ...w.state! }]));
  }

  /** Checks everything once (a dependency that does not answer then counts as down), then keeps checking in the background. */
  async start(): Promise<void> {
    await this.checkAll();
    if (this.stopped) return; // stopped while the first check ran
    this.timer = setInterval(() => void this.checkAll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async checkAll(): Promise<void> {
    await Promise.all(this.watched.map((w) => this.check(w)));
  }

  private async check(w: Watched): Promise<void> {
    // A ping still unanswered from an earlier check is waited for again rather than joined by another:
    // a slow store gets one question at a time. One given up on (the silence already counted down) is replaced.
    if (!w.pending || this.silentFor(w) >= this.silenceMs) w.pending = this.ping(w);
    const answered = await settlesWithin(w.pending, this.timeoutMs);
    if (!answered) this.unanswered(w, `no answer within ${this.timeoutMs} ms`);
  }

  private silentFor(w: Watched): number {
    return w.lastAnswerAt === undefined ? Infinity : Date.now() - w.lastAnswerAt;
  }

  private ping(w: Watched): Promise<void> {
    const ping = Promise.resolve()
      .then(() => w.dependency.ping())
      .then(
        () => {
          if (w.pending !== ping) return; // given up on; a newer ping speaks for the dependency
          this.answered(w, { up: true, checkedAt: Date.now() });
        },
        (error: unknown) => {
          if (w.pending !== ping) return;
          const reason = (error as Error)?.message ?? String(error);
          if (isNoAnswer(error)) this.unanswered(w, reason);
          else this.answered(w, { up: false, checkedAt: Date.now(), reason });
        },
      )
      .finally(() => {
        if (w.pending === ping) w.pending = undefined;
      });
    return ping;
  }

  private answered(w: Watched, state: DependencyState): void {
    w.lastAnswerAt = state.checkedAt;
    w.silenceLogged = false;
    this.record(w, state);
  }

  /** A check without an answer: down once the silence has lasted (or if it never answered), else the last verdict stands and ages. */
  private unanswered(w: Watched, reason: string): void {
    const silentFor = this.silentFor(w);
    if (w.state?.up && silentFor < this.silenceMs) {
      if (!w.silenceLogged) this.logger.info({ dependency: w.dependency.name, reason }, 'dependency slow: counted down only if it stays silent');
      w.silenceLogged = true;
      return;
    }
    this.record(w, { up: false, checkedAt: Date.now(), reason: Number.isFinite(silentFor) ? `${reason}; nothing for ${silentFor} ms` : reason });
  }

  private record(w: Watched, state: DependencyState): void {
    const before = w.state;
    w.state = state;
    if (before?.up === state.up) return;
    const name = w.dependency.name;
    if (!state.up) this.logger.warn({ dependency: name, err: state.reason }, 'dependency down');
    else if (before) this.logger.info({ dependency: name }, 'dependency back');
    this.onChange(name, state.up);
  }
}
