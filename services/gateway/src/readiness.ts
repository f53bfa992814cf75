import { Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import type { Redis } from 'ioredis';
import { health } from '@sandbox/contracts';
import {
  DependencyMonitor,
  GrpcStatus,
  grpcChannelSecurity,
  LIVENESS,
  openRedis,
  resolveTarget,
  SERVICE_NAMES,
  settlesWithin,
  type DependencyState,
  type GrpcTls,
  type Logger,
  type Resolve,
  type ServiceName,
} from '@sandbox/runtime';

const { SERVING, NOT_SERVING, SERVICE_UNKNOWN } = health.HealthCheckResponse_ServingStatus;

/*
 * /health/ready answers from what this module keeps current in the
 * background, never from calls made for the request: a request queued behind
 * a heavy load must not make a part look down (docs/deployment.md, Health).
 *
 * For every replica of every service (each address the gateway balances
 * over) it keeps a connection of its own, off the request path, and on it:
 * - a grpc.health.v1 Watch for `liveness` and for each store the service may
 *   use: the service pushes every change of its own verdict, so a store its
 *   service finds down is known here at once;
 * - a Check of `liveness` every READINESS_CHECK_INTERVAL_MS, which says the
 *   replica still answers, and so how old what it pushed is.
 * The gateway's own store (REDIS_URL) is checked by the same monitor every
 * service uses for its stores (runtime dependency-monitor.ts).
 */

/** How often each replica is asked whether it answers. */
export const READINESS_CHECK_INTERVAL_MS = 1000;
/**
 * Refused checks in a row (the connection refused or broken: what a stopped
 * process gives) before a replica counts as down; the second comes
 * RECHECK_AFTER_REFUSAL_MS after the first, so a stopped process is named
 * within about a quarter second of the gateway noticing.
 */
export const REFUSALS_TO_DOWN = 2;
export const RECHECK_AFTER_REFUSAL_MS = 250;
/**
 * A replica that does not refuse but does not answer either counts as down
 * only once it has answered nothing, late answers included, for this many
 * check intervals (5 s by default) and at least two checks went unanswered:
 * a machine too busy to answer within READINESS_TIMEOUT_MS is not an outage.
 */
export const SILENT_INTERVALS_TO_DOWN = 5;

/** The stores each service may report, by the names the docs give them; a service that does not use one answers SERVICE_UNKNOWN for it, and it is left out. */
export const STORES: Record<ServiceName, readonly string[]> = { identity: ['mongodb', 'redis'], oauth: ['redis'], data: [], playground: [] };

/**
 * A verdict older than this (two checks' worth, 4 s by default) is reported
 * as stale: nothing has confirmed it lately. It keeps its status: a part is
 * down only on evidence (refused checks, the part's own word, or a silence
 * of SILENT_INTERVALS_TO_DOWN with checks made and unanswered), and a
 * verdict that merely aged may as well mean the gateway itself did not get
 * to check (a starved event loop).
 */
export const staleAfterMs = (intervalMs: number, timeoutMs: number): number => 2 * (intervalMs + timeoutMs);

export interface Verdict {
  status: 'up' | 'down';
  reason?: string;
  /** When it was last confirmed, ms since the epoch. */
  at: number;
}

function verdictOf(status: health.HealthCheckResponse_ServingStatus, at: number): Verdict {
  if (status === SERVING) return { status: 'up', at };
  return { status: 'down', reason: status === NOT_SERVING ? 'not serving' : 'unknown state', at };
}

/** What the gateway has heard from one replica; no I/O, so its rules can be tested on their own. */
export class ReplicaHealth {
  private readonly heard = new Map<string, { status: health.HealthCheckResponse_ServingStatus; at: number; open: boolean }>();
  /** Checks in a row that failed, and of those the last ones that were refusals. */
  private failures = 0;
  private refusals = 0;
  private lastFailure?: { reason: string; at: number };
  private lastAnswerAt?: number;

  constructor(
    readonly address: string,
    private readonly since: number,
    private readonly silenceMs = SILENT_INTERVALS_TO_DOWN * READINESS_CHECK_INTERVAL_MS,
  ) {}

  /** A Check of liveness answered, in time or late. */
  answered(status: health.HealthCheckResponse_ServingStatus, at: number): void {
    this.failures = 0;
    this.refusals = 0;
    this.lastAnswerAt = at;
    this.heard.set(LIVENESS, { status, at, open: this.heard.get(LIVENESS)?.open ?? false });
  }

  /** A Check of liveness refused (`refused`: the connection was refused or broke) or unanswered. */
  failed(reason: string, at: number, refused: boolean): void {
    this.failures++;
    this.refusals = refused ? this.refusals + 1 : 0;
    this.lastFailure = { reason, at };
  }

  /** A Watch stream said `name` is now `status`. */
  watched(name: string, status: health.HealthCheckResponse_ServingStatus, at: number): void {
    this.heard.set(name, { status, at, open: true });
  }

  /** A Watch stream ended: what it said last is no longer kept current. */
  watchEnded(name: string): void {
    const heard = this.heard.get(name);
    if (heard) heard.open = false;
  }

  get failing(): boolean {
    return this.failures > 0;
  }

  /** Whether the first round is over: the replica answered or failed, and every name was heard. */
  settled(names: readonly string[]): boolean {
    return this.failures > 0 || (this.lastAnswerAt !== undefined && names.every((name) => this.heard.has(name)));
  }

  liveness(now = Date.now()): Verdict {
    if (this.refusals >= REFUSALS_TO_DOWN) return { status: 'down', reason: this.lastFailure!.reason, at: this.lastFailure!.at };
    const silentFor = now - (this.lastAnswerAt ?? this.since);
    if (this.failures >= 2 && silentFor >= this.silenceMs) return { status: 'down', reason: this.lastFailure!.reason, at: this.lastFailure!.at };
    const heard = this.heard.get(LIVENESS);
    if (!heard) return { status: 'down', reason: this.lastFailure?.reason ?? 'not yet checked', at: this.lastFailure?.at ?? this.since };
    return verdictOf(heard.status, heard.at);
  }

  /**
   * What the replica says of one of its stores: a verdict; 'absent' when it
   * does not use it; undefined before anything was heard. A verdict pushed
   * on a stream that is still open is as fresh as the replica's last answer.
   */
  store(name: string): Verdict | 'absent' | undefined {
    const heard = this.heard.get(name);
    if (!heard) return undefined;
    if (heard.status === SERVICE_UNKNOWN) return 'absent';
    const current = heard.open && this.failures === 0 && this.lastAnswerAt !== undefined;
    return verdictOf(heard.status, current ? Math.max(heard.at, this.lastAnswerAt!) : heard.at);
  }
}

export interface Component {
  status: 'up' | 'down';
  /** For a store: the parts that reach it, e.g. "identity, oauth, gateway". */
  via?: string;
  reason?: string;
  /** For a service: how many of its replicas serve. */
  replicas?: { up: number; of: number };
  /** When the verdict was last confirmed (ms since the epoch). */
  at: number;
}

export interface ServiceHealth {
  replicas: ReplicaHealth[];
  /** Why no replica is known, when none is (a name that resolves to no address). */
  none?: { reason: string; at: number };
}

export interface Judgement {
  ready: boolean;
  components: Record<string, Component>;
  down: string[];
}

/**
 * The verdict on every part from what was heard: a service is up when any of
 * its replicas serves (one draining in a rolling update does not make it
 * down); a store is up when, for every part that reaches it, a serving
 * replica says so. A store behind a service that is itself down is unknown,
 * not down: only the service is named.
 */
export function judge(services: Record<ServiceName, ServiceHealth>, gatewayStores: Record<string, DependencyState> = {}, now = Date.now()): Judgement {
  const components: Record<string, Component> = {};
  const storeReports = new Map<string, { via: string; verdict: Verdict }[]>();
  const report = (store: string, via: string, verdict: Verdict) => storeReports.set(store, [...(storeReports.get(store) ?? []), { via, verdict }]);

  for (const service of SERVICE_NAMES) {
    const { replicas, none } = services[service];
    if (replicas.length === 0) {
      components[service] = { status: 'down', reason: none?.reason ?? 'no address', at: none?.at ?? now };
      continue;
    }
    const verdicts = replicas.map((replica) => ({ replica, liveness: replica.liveness(now) }));
    const serving = verdicts.filter((v) => v.liveness.status === 'up');
    components[service] =
      serving.length > 0
        ? { status: 'up', replicas: { up: serving.length, of: replicas.length }, at: Math.max(...serving.map((v) => v.liveness.at)) }
        : {
            status: 'down',
            // A replica's own word (draining, stopping) explains more than silence from another.
            reason: (verdicts.find((v) => v.liveness.reason === 'not serving') ?? verdicts[0]!).liveness.reason,
            replicas: { up: 0, of: replicas.length },
            at: Math.max(...verdicts.map((v) => v.liveness.at)),
          };
    for (const store of STORES[service]) {
      const said = serving.map((v) => v.replica.store(store)).filter((s): s is Verdict => s !== undefined && s !== 'absent');
      if (said.length === 0) continue;
      const up = said.filter((s) => s.status === 'up');
      report(store, service, up.length > 0 ? { status: 'up', at: Math.max(...up.map((s) => s.at)) } : { ...said[0]!, at: Math.max(...said.map((s) => s.at)) });
    }
  }
  for (const [store, state] of Object.entries(gatewayStores)) {
    report(store, 'gateway', { status: state.up ? 'up' : 'down', reason: state.reason, at: state.checkedAt });
  }

  for (const [store, reports] of storeReports) {
    const down = reports.filter((r) => r.verdict.status === 'down');
    const via = reports.map((r) => r.via).join(', ');
    components[store] =
      down.length === 0
        ? // As fresh as its oldest confirmation.
          { status: 'up', via, at: Math.min(...reports.map((r) => r.verdict.at)) }
        : {
            status: 'down',
            via,
            reason: reports.length > 1 ? `${down[0]!.verdict.reason} (from ${down.map((r) => r.via).join(', ')})` : down[0]!.verdict.reason,
            at: Math.max(...down.map((r) => r.verdict.at)),
          };
  }

  const down = Object.entries(components)
    .filter(([, state]) => state.status === 'down')
    .map(([name]) => name)
    .sort();
  return { ready: down.length === 0, components, down };
}

// ---- the watchers ------------------------------------------------------------

/** Reconnect quickly after a replica restarts; a connection of its own, so health is never queued behind the API's calls. */
const CHANNEL_OPTIONS = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.use_local_subchannel_pool': 1,
};

/** The I/O for one replica: its Watch streams, its liveness checks. */
class ReplicaWatch {
  readonly health: ReplicaHealth;
  private readonly client: health.HealthClient;
  private readonly streams = new Map<string, ClientReadableStream<health.HealthCheckResponse>>();
  private readonly reopening = new Map<string, NodeJS.Timeout>();
  private checking: Promise<void> | undefined;
  /** The question still unanswered, if any. */
  private asking: Promise<void> | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    readonly service: ServiceName,
    readonly address: string,
    readonly names: readonly string[],
    tls: GrpcTls,
    private readonly options: { intervalMs: number; timeoutMs: number; silenceMs: number; logger: Logger },
  ) {
    this.health = new ReplicaHealth(address, Date.now(), options.silenceMs);
    const security = grpcChannelSecurity(tls, service);
    this.client = new health.HealthClient(address, security.credentials, { ...CHANNEL_OPTIONS, ...security.options });
  }

  open(): void {
    for (const name of this.names) this.watch(name);
  }

  private watch(name: string): void {
    if (this.closed) return;
    const call = this.client.watch({ service: name }, new Metadata());
    this.streams.set(name, call);
    call.on('data', (answer: health.HealthCheckResponse) => this.health.watched(name, answer.status, Date.now()));
    const ended = () => {
      if (this.streams.get(name) !== call) return;
      this.streams.delete(name);
      this.health.watchEnded(name);
      if (this.closed) return;
      // A stream that breaks is often the first sign of a stopped process: ask at once.
      void this.check();
      const delay = this.health.failing ? this.options.intervalMs : RECHECK_AFTER_REFUSAL_MS;
      const timer = setTimeout(() => {
        this.reopening.delete(name);
        this.watch(name);
      }, delay);
      timer.unref();
      this.reopening.set(name, timer);
    };
    call.on('error', ended);
    call.on('end', ended);
  }

  /** One liveness check at a time; a check asked for while one runs shares it. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /**
   * Asks, unless a question is still unanswered: then waits for that one
   * again, so a slow replica gets one question at a time and its late answer
   * still counts (it ends the silence). The answer is recorded whenever it
   * comes; a check that sees none within the timeout is recorded as unanswered.
   */
  private async checkOnce(): Promise<void> {
    clearTimeout(this.recheck);
    this.asking ??= this.ask();
    const inTime = await settlesWithin(this.asking, this.options.timeoutMs);
    if (!inTime && !this.closed) this.health.failed('no answer in time', Date.now(), false);
  }

  private ask(): Promise<void> {
    return new Promise<void>((resolve) => {
      // The deadline only ends a question nobody answers, so that another is asked: lateness is judged by checkOnce.
      const deadline = Date.now() + this.options.silenceMs;
      this.client.check({ service: LIVENESS }, new Metadata(), { deadline }, (error, response) => {
        this.asking = undefined;
        resolve();
        if (this.closed) return;
        const at = Date.now();
        if (!error) {
          this.health.answered(response.status, at);
          for (const name of this.names) if (!this.streams.has(name) && !this.reopening.has(name)) this.watch(name);
        } else if (error.code === GrpcStatus.UNAVAILABLE) {
          this.health.failed('unreachable', at, true);
          this.recheck = setTimeout(() => void this.check(), RECHECK_AFTER_REFUSAL_MS);
          this.recheck.unref();
        } else {
          this.health.failed(error.code === GrpcStatus.DEADLINE_EXCEEDED ? 'no answer in time' : 'unreachable', at, false);
        }
      });
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.recheck);
    for (const timer of this.reopening.values()) clearTimeout(timer);
    for (const call of this.streams.values()) call.cancel();
    this.streams.clear();
    this.client.close();
  }
}

/** Every replica of one service, found again on each round where its address is a name (a headless Service). */
class ServiceWatch {
  private readonly replicas = new Map<string, ReplicaWatch>();
  private none: { reason: string; at: number } | undefined;
  private readonly target: ReturnType<typeof resolveTarget>;
  private resolvedOnce = false;

  constructor(
    readonly service: ServiceName,
    address: string,
    private readonly tls: GrpcTls,
    private readonly options: { intervalMs: number; timeoutMs: number; silenceMs: number; logger: Logger; resolve?: Resolve },
  ) {
    const target = /^(dns|ipv4|ipv6|unix|unix-abstract):/.test(address) ? address : `dns:///${address}`;
    this.target = resolveTarget(target, options.resolve);
  }

  get names(): readonly string[] {
    return [LIVENESS, ...STORES[this.service]];
  }

  async round(): Promise<void> {
    if (this.target.dynamic || !this.resolvedOnce) await this.resolve();
    await Promise.all([...this.replicas.values()].map((replica) => replica.check()));
  }

  private async resolve(): Promise<void> {
    let addresses: string[];
    try {
      addresses = await this.target.addresses();
    } catch (error) {
      const code = (error as { code?: string }).code;
      // No such name (a headless Service with no ready pod) means no replica; any other failure keeps the replicas known.
      if (code !== 'ENOTFOUND' && code !== 'ENODATA') return;
      addresses = [];
    }
    this.resolvedOnce = true;
    const wanted = new Set(addresses);
    for (const [address, replica] of this.replicas) {
      if (wanted.has(address)) continue;
      replica.close();
      this.replicas.delete(address);
    }
    for (const address of wanted) {
      if (this.replicas.has(address)) continue;
      const replica = new ReplicaWatch(this.service, address, this.names, this.tls, this.options);
      this.replicas.set(address, replica);
      replica.open();
    }
    this.none = wanted.size === 0 ? { reason: 'no address', at: Date.now() } : undefined;
  }

  settled(): boolean {
    return [...this.replicas.values()].every((replica) => replica.health.settled(replica.names));
  }

  health(): ServiceHealth {
    return { replicas: [...this.replicas.values()].map((replica) => replica.health), none: this.none };
  }

  close(): void {
    for (const replica of this.replicas.values()) replica.close();
    this.replicas.clear();
  }
}

export interface ReadinessWatchOptions {
  peers: Record<ServiceName, string>;
  tls: GrpcTls;
  /** How long a check waits for its answer (READINESS_TIMEOUT_MS). */
  timeoutMs: number;
  intervalMs?: number;
  /** The gateway's own Redis (REDIS_URL): its fair-share counts and the change feed that empties its caches. */
  redisUrl?: string;
  logger: Logger;
  /** DNS unless a test gives its own. */
  resolve?: Resolve;
}

/** One part's verdict as /health/ready shows it. */
export interface ComponentView extends Omit<Component, 'at'> {
  checkedAt: string;
  ageMs: number;
  stale?: true;
}

export interface ReadinessSnapshot {
  ready: boolean;
  down: string[];
  components: Record<string, ComponentView>;
}

/** What the route reads: the current verdicts, at once. */
export interface ReadinessView {
  snapshot(now?: number): ReadinessSnapshot;
}

export class ReadinessWatch implements ReadinessView {
  private readonly services: ServiceWatch[];
  private readonly intervalMs: number;
  private readonly staleAfterMs: number;
  private readonly ownRedis: Redis | undefined;
  private readonly ownStores: DependencyMonitor | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: ReadinessWatchOptions) {
    this.intervalMs = options.intervalMs ?? READINESS_CHECK_INTERVAL_MS;
    this.staleAfterMs = staleAfterMs(this.intervalMs, options.timeoutMs);
    const shared = {
      intervalMs: this.intervalMs,
      timeoutMs: options.timeoutMs,
      silenceMs: SILENT_INTERVALS_TO_DOWN * this.intervalMs,
      logger: options.logger,
      resolve: options.resolve,
    };
    this.services = SERVICE_NAMES.map((name) => new ServiceWatch(name, options.peers[name], options.tls, shared));
    if (options.redisUrl) {
      const redis = openRedis(options.redisUrl, { lazyConnect: true });
      redis.on('error', () => undefined); // reported as the store's verdict
      this.ownRedis = redis;
      this.ownStores = new DependencyMonitor(
        [{ name: 'redis', ping: () => redis.ping().then(() => undefined) }],
        () => undefined,
        options.logger,
        this.intervalMs,
      );
    }
  }

  /**
   * The first round, so the first answer already has verdicts, then one
   * every interval. Bounded (twice the check timeout): a gateway starts
   * whatever is down, slow to resolve or slow to answer.
   */
  async start(): Promise<void> {
    const until = Date.now() + 2 * this.options.timeoutMs;
    // Commands are refused until the connection is up (REDIS_FAIL_FAST): the first check waits for it, as long as a check waits.
    const connected = this.ownRedis
      ? settlesWithin(
          this.ownRedis.connect().catch(() => undefined),
          this.options.timeoutMs,
        )
      : undefined;
    const first = Promise.all([
      ...this.services.map((service) => service.round()),
      connected?.then(() => (this.stopped ? undefined : this.ownStores?.start())),
    ]);
    await settlesWithin(first, this.options.timeoutMs);
    while (!this.services.every((service) => service.settled()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    if (this.stopped) return;
    this.timer = setInterval(() => void this.round(), this.intervalMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    await Promise.all(
      this.services.map((service) =>
        service
          .round()
          .catch((error: unknown) => this.options.logger.warn({ service: service.service, err: (error as Error).message }, 'readiness round failed')),
      ),
    );
  }

  snapshot(now = Date.now()): ReadinessSnapshot {
    const services = Object.fromEntries(this.services.map((service) => [service.service, service.health()])) as Record<ServiceName, ServiceHealth>;
    const { ready, down, components } = judge(services, this.ownStores?.states(), now);
    return {
      ready,
      down,
      components: Object.fromEntries(Object.entries(components).map(([name, component]) => [name, view(component, now, this.staleAfterMs)])),
    };
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.ownStores?.stop();
    this.ownRedis?.disconnect();
    for (const service of this.services) service.close();
  }
}

export function view({ at, ...component }: Component, now: number, staleAfter: number): ComponentView {
  const ageMs = Math.max(0, now - at);
  return { ...component, checkedAt: new Date(at).toISOString(), ageMs, ...(ageMs > staleAfter ? { stale: true as const } : {}) };
}
