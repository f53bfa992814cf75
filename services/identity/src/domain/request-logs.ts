import { randomBytes } from 'node:crypto';
import { invalidArgument } from '@sandbox/runtime';
import type { AppStore } from '../stores/app-store';
import type { RequestLogRecord, RequestLogStore } from '../stores/request-log-store';
import { appNotFound } from './apps';
import { BatchApps } from './batch-apps';
import { PATTERN } from './credentials';
import { LIMITS } from './limits';
import type { PageTokens } from './page-tokens';
import { RequestLogTrims } from './request-log-trims';
import { isAppResourceId } from './validation';

/**
 * An entry as the gateway reports it: a stored record without its id, its
 * time as text, and the app named by its internal id or, when the caller did
 * not authenticate as it, by its App ID; with the facts the gateway knew of
 * it (judged for exercises, never stored in the log).
 */
export type RequestLogInput = Omit<RequestLogRecord, 'id' | 'time'> & { time: string; appId: string; facts?: Readonly<Record<string, string>> };

export interface RequestLogPage {
  entries: RequestLogRecord[];
  nextPageToken: string;
  total: number;
}

const PATH_MAX = 2048;
/** How often at most one app's log is trimmed back to its cap (request-log-trims.ts). */
export const TRIM_INTERVAL_MS = 5_000;
/**
 * Trims one identity process runs at once. A trim reads the app's entries
 * (on FerretDB, each of them decoded, for every trim: see
 * docs/reliability.md), so on a busy store one can take seconds; trims
 * started regardless piled up behind each other, 26 scans of one log at
 * once, and held FerretDB's connections from everyone else.
 */
export const TRIMS_AT_ONCE = 2;
const FAILURE_MAX = 500;
const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

// Ids that sort in arrival order within one process, so entries of the same
// millisecond still list newest first: 12 hex of time, 6 of a counter, 6 that
// tell replicas apart (random once per process: a syscall per entry is too
// dear at the gateway's request rate).
let counter = 0;
const PROCESS_TAG = randomBytes(3).toString('hex');
export function newLogId(time: Date): string {
  counter = (counter + 1) % 0x1000000;
  const ms = Math.max(0, Math.min(time.getTime(), 0xffffffffffff));
  return ms.toString(16).padStart(12, '0') + counter.toString(16).padStart(6, '0') + PROCESS_TAG;
}

/**
 * The newest `cap` entries of each app: under load a batch can hold far more
 * entries of one app than its log keeps, and storing the rest only to trim
 * them at once costs the service more than serving the requests did.
 */
export function newestPerApp<T extends { app: string; time: Date }>(entries: T[], cap: number): T[] {
  const byApp = new Map<string, T[]>();
  for (const entry of entries) {
    const list = byApp.get(entry.app);
    if (list) list.push(entry);
    else byApp.set(entry.app, [entry]);
  }
  const kept: T[] = [];
  for (const list of byApp.values()) {
    kept.push(...(list.length <= cap ? list : list.sort((a, b) => b.time.getTime() - a.time.getTime()).slice(0, cap)));
  }
  return kept;
}

/**
 * Turns a reported entry into what is stored, or undefined to drop it. Only
 * the path is kept, never the query string (it may hold api_key=...).
 */
export function sanitizeEntry(input: RequestLogInput, now: Date): Omit<RequestLogRecord, 'id'> | undefined {
  if (!PATTERN.resourceId.test(input.app)) return undefined;
  const parsed = Date.parse(input.time);
  // A clock far ahead would pin an entry to the top of the list for ever.
  const time = Number.isFinite(parsed) && parsed <= now.getTime() + 60_000 ? new Date(parsed) : now;
  const method = input.method.toUpperCase();
  const path = clip(input.path.split(/[?#]/, 1)[0] ?? '', PATH_MAX);
  return {
    app: input.app,
    time,
    method: /^[A-Z]{1,16}$/.test(method) ? method : 'OTHER',
    path: path.startsWith('/') ? path : `/${path}`,
    status: Number.isInteger(input.status) && input.status >= 100 && input.status <= 599 ? input.status : 0,
    authStyle: /^[a-z0-9_-]{1,32}$/.test(input.authStyle) ? input.authStyle : '',
    latencyMs: Number.isFinite(input.latencyMs) && input.latencyMs >= 0 ? Math.round(input.latencyMs * 1000) / 1000 : 0,
    requestId: /^[\x21-\x7e]{1,128}$/.test(input.requestId) ? input.requestId : '',
    // Words for people, from our own services; control characters are dropped all the same.
    failure: clip(input.failure.replace(/[\u0000-\u001f\u007f]/g, ' '), FAILURE_MAX),
  };
}

/** Per-app request logs: recorded by the gateway, read by the app's owner, bounded per app, deleted with the app. */
export class RequestLogService {
  private readonly now: () => Date;
  private readonly trims: RequestLogTrims;
  /** Set while an owed trim waits for its interval to end (request-log-trims.ts), for the earliest. */
  private owedTimer: { timer: NodeJS.Timeout; at: number } | undefined;
  /** The trims under way in this process, by app: one per app, at most TRIMS_AT_ONCE. */
  private readonly trimming = new Map<string, Promise<void>>();
  /** The orphan sweep under way, if any: a sweep slower than its interval is not started again beside itself. */
  private sweeping: Promise<number> | undefined;

  constructor(
    private readonly logs: RequestLogStore,
    private readonly apps: AppStore,
    private readonly capPerApp: number,
    private readonly tokens: PageTokens,
    now?: () => Date,
    private readonly trimIntervalMs = TRIM_INTERVAL_MS,
  ) {
    this.now = now ?? (() => new Date());
    this.trims = new RequestLogTrims(capPerApp, trimIntervalMs);
  }

  /**
   * Stores the (newest) entries of apps that still exist and starts the trim
   * to its cap of each app whose trim is due; how many were kept. The trims
   * run after the answer (a gateway's flush waits for the insert only, so a
   * slow trim never turns a stored batch into a failed one the gateway would
   * count again). `apps`: the batch's apps when the caller has read them
   * already (RecordedRequests), else read here.
   */
  async record(inputs: readonly RequestLogInput[], apps?: BatchApps): Promise<number> {
    if (inputs.length > LIMITS.recordBatchMax) {
      throw invalidArgument('batch_too_large', `At most ${LIMITS.recordBatchMax} entries per call (got ${inputs.length}).`);
    }
    if (inputs.length === 0) return 0;
    const now = this.now();
    const known = apps ?? (await BatchApps.resolve(this.apps, inputs));
    const kept = inputs
      .map((input) => sanitizeEntry({ ...input, app: known.idOf(input) }, now))
      .filter((entry): entry is Omit<RequestLogRecord, 'id'> => entry !== undefined && known.get(entry.app) !== undefined);
    const records = newestPerApp(kept, this.capPerApp).map((entry) => ({ id: newLogId(entry.time), ...entry }));
    if (records.length === 0) return 0;
    await this.logs.append(records);
    const arrived = new Map<string, number>();
    for (const { app } of records) arrived.set(app, (arrived.get(app) ?? 0) + 1);
    await this.takeBackFromDeletedApps([...arrived.keys()]);
    for (const app of this.trims.arrived(arrived, now.getTime())) this.startTrim(app);
    this.scheduleOwedTrims();
    return records.length;
  }

  /**
   * A batch reads its apps before it inserts, so an app deleted in between
   * (on any replica) had its log removed before these entries arrived:
   * they are taken back at once, as the deletion's answer promised (one
   * query per batch; the minutely orphan sweep would take a minute).
   */
  private async takeBackFromDeletedApps(apps: string[]): Promise<void> {
    const existing = await this.apps.existingIds(apps);
    const gone = apps.filter((app) => !existing.has(app));
    if (gone.length) await this.logs.deleteForApps(gone);
  }

  /**
   * Trims one app in the background. An app already being trimmed is left to
   * that trim (what arrives after it began makes the app due again); beyond
   * TRIMS_AT_ONCE the trim is owed for one interval later.
   */
  private startTrim(app: string): void {
    if (this.trimming.has(app)) return;
    if (this.trimming.size >= TRIMS_AT_ONCE) {
      this.trims.owe(app, this.now().getTime() + this.trimIntervalMs);
      return;
    }
    // A failed trim is not tried again: the app's next entries or its owner's next read trim it.
    const trim = this.logs
      .trim(app, this.capPerApp)
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.trimming.delete(app));
    this.trimming.set(app, trim);
  }

  /** Resolves once the trims under way have ended (tests wait for it). */
  async trimsSettled(): Promise<void> {
    while (this.trimming.size > 0) await Promise.all(this.trimming.values());
  }

  /** One timer for the earliest owed trim, off the request path; it schedules the next when it has run. */
  private scheduleOwedTrims(): void {
    const at = this.trims.nextOwedAt();
    if (at === undefined || (this.owedTimer && this.owedTimer.at <= at)) return;
    if (this.owedTimer) clearTimeout(this.owedTimer.timer);
    const timer = setTimeout(
      () => {
        this.owedTimer = undefined;
        this.trimOwed();
      },
      Math.max(0, at - this.now().getTime()),
    );
    timer.unref();
    this.owedTimer = { timer, at };
  }

  private trimOwed(): void {
    for (const app of this.trims.owedDue(this.now().getTime())) this.startTrim(app);
    this.scheduleOwedTrims();
  }

  /**
   * One page, newest first. The page size and token are checked before the
   * app (as in AppService), and a token is bound to the app that issued it, so
   * an id of the wrong form gets exactly what an unknown id gets. An owner
   * sees at most the cap: entries beyond it that wait for their trim (lazy,
   * see RequestLogTrims) are trimmed before the page is read, and the total
   * never says more than the cap even while a batch lands meanwhile.
   */
  async list(ownerId: string, id: string, pageSize: number, pageToken: string): Promise<RequestLogPage> {
    if (!Number.isInteger(pageSize) || pageSize < 0) throw invalidArgument('invalid_page_size', 'page_size must be a positive integer.');
    const limit = Math.min(pageSize === 0 ? LIMITS.logPageSizeDefault : pageSize, LIMITS.logPageSizeMax);
    const after = pageToken === '' ? undefined : this.tokens.open(id, pageToken);
    if (!isAppResourceId(id) || !(await this.apps.findOwned(ownerId, id))) throw appNotFound();
    const read = () => Promise.all([this.logs.list(id, limit + 1, after), this.logs.count(id)]);
    let [rows, total] = await read();
    if (total > this.capPerApp) {
      await this.logs.trim(id, this.capPerApp);
      [rows, total] = await read();
    }
    const entries = rows.slice(0, limit);
    const last = entries[entries.length - 1];
    return { entries, nextPageToken: rows.length > limit && last ? this.tokens.seal(id, last) : '', total: Math.min(total, this.capPerApp) };
  }

  /**
   * Deletes entries whose app is gone: a batch that arrived while its app was
   * being deleted, or a deletion whose log clean-up failed half-way.
   */
  async removeOrphans(): Promise<number> {
    this.sweeping ??= this.sweepOrphans().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOrphans(): Promise<number> {
    const apps = await this.logs.appIds();
    const existing = await this.apps.existingIds(apps);
    return this.logs.deleteForApps(apps.filter((app) => !existing.has(app)));
  }
}
