import { failedPrecondition, invalidArgument, notFound } from '@sandbox/runtime';
import type { AppLimitRecord, AppLimitStore } from '../stores/app-limit-store';
import type { AppRecord, AppStore } from '../stores/app-store';
import type { AuditAction, AuditActor, AuditCursor, AuditRecord, AuditStore } from '../stores/audit-store';
import type { RequestLogStore } from '../stores/request-log-store';
import type { SessionStore } from '../stores/session-store';
import type { UsageRecord, UsageStore } from '../stores/usage-store';
import type { UserCursor, UserRecord, UserStore } from '../stores/user-store';
import { DELETED_USER_MEMORY_MS, deletedUserRecordId } from './accounts';
import { PATTERN } from './credentials';
import { isOperator, type OperatorRule } from './operators';
import { newLogId } from './request-logs';
import { isDay } from './usage';

/** A user as an operator sees them: never a password hash. */
export interface UserOverview {
  user: UserRecord;
  disabled: boolean;
  operator: boolean;
  appCount: number;
  requestCount: number;
  lastActiveAt: Date;
}

export interface UsageExportRow extends UsageRecord {
  email: string;
  appName: string;
}

export interface AdminDeps {
  users: UserStore;
  sessions: SessionStore;
  apps: AppStore;
  logs: RequestLogStore;
  usage: UsageStore;
  audit: AuditStore;
  limits: AppLimitStore;
  operators: OperatorRule;
  /** Called after apps change, so cached credential answers are dropped at once (other replicas' within their TTL). */
  onChange: () => void;
  now?: () => Date;
}

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;
const LOCAL_PROVIDER = 'password';

const userNotFound = () => notFound('user_not_found', 'No user with this id was found.');

/** A page token: the position after the last item shown, as base64url JSON; operators only, so it is not signed, only checked. */
function sealCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.getTime(), id])).toString('base64url');
}
function openCursor(token: string): { at: Date; id: string } | undefined {
  if (token === '') return undefined;
  try {
    const [ms, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof ms === 'number' && Number.isSafeInteger(ms) && typeof id === 'string' && id.length <= 64) return { at: new Date(ms), id };
  } catch {
    // refused below
  }
  throw invalidArgument('invalid_page_token', 'pageToken is not one this list issued: send nextPageToken back unchanged, or start again without one.');
}
function pageSize(requested: number): number {
  if (!Number.isInteger(requested) || requested < 0) throw invalidArgument('invalid_page_size', 'page_size must be a positive integer.');
  return Math.min(requested === 0 ? PAGE_DEFAULT : requested, PAGE_MAX);
}

/** A moment from an operator: an RFC 3339 date-time, or a date (its start, UTC). */
export function parseBefore(text: string): Date {
  const moment = isDay(text) ? Date.parse(`${text}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(moment)) {
    throw invalidArgument('invalid_before', 'before must be a date (2030-01-31) or an RFC 3339 date-time (2030-01-31T17:00:00Z).');
  }
  return new Date(moment);
}

function checkActor(actor: { kind: string; id: string; email: string } | undefined): AuditActor {
  if (!actor || (actor.kind !== 'session' && actor.kind !== 'cli') || actor.id === '') {
    throw invalidArgument('actor_required', 'Every operator action names who does it: a signed-in operator, or the admin CLI.');
  }
  return { kind: actor.kind, id: actor.id, email: actor.email };
}

/**
 * What operators do (docs/operators.md): look at users, disable, enable or
 * delete one, purge everything from before a moment, export usage, and set
 * an app's own fair-share limit. Every change is written to the audit log
 * once it has succeeded. Deletion goes app data first and the user last, so a
 * failure half-way leaves a user an operator can delete again to finish.
 */
export class AdminService {
  private readonly now: () => Date;

  constructor(private readonly deps: AdminDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async listUsers(query: { pageSize: number; pageToken: string; emailContains: string }): Promise<{ users: UserOverview[]; nextPageToken: string; total: number }> {
    const limit = pageSize(query.pageSize);
    const cursor = openCursor(query.pageToken);
    const after: UserCursor | undefined = cursor && { createdAt: cursor.at, id: cursor.id };
    const emailContains = query.emailContains.trim().toLowerCase();
    const [rows, total] = await Promise.all([this.deps.users.list({ limit: limit + 1, after, emailContains }), this.deps.users.count(emailContains)]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { users: await this.overviews(page), nextPageToken: rows.length > limit && last ? sealCursor(last.createdAt, last.id) : '', total };
  }

  async getUser(userId: string): Promise<{ overview: UserOverview; apps: AppRecord[] }> {
    const user = await this.findUser(userId);
    const [overview] = await this.overviews([user]);
    return { overview: overview!, apps: await this.deps.apps.listByOwner(user.id) };
  }

  async setDisabled(actorInput: AuditActor | undefined, userId: string, disabled: boolean): Promise<UserOverview> {
    const actor = checkActor(actorInput);
    this.notSelf(actor, userId);
    const user = await this.findUser(userId);
    // The apps first: were the user marked and the apps not, an enable would
    // find nothing to undo; this way a retry after a failure finishes the job.
    await this.deps.apps.setOwnerDisabled(user.id, disabled);
    this.deps.onChange();
    const updated = (await this.deps.users.update(user.id, { disabledAt: disabled ? (user.disabledAt ?? this.now()) : null })) ?? user;
    // A disabled user's sessions end at once (their tokens are refused anyway while disabled; an enable does not bring them back).
    if (disabled) await this.deps.sessions.deleteForUser(user.id);
    await this.record(actor, disabled ? 'user.disable' : 'user.enable', updated, disabled ? 'sessions ended; app credentials refused' : 'app credentials work again');
    const [overview] = await this.overviews([updated]);
    return overview!;
  }

  async deleteUser(actorInput: AuditActor | undefined, userId: string): Promise<{ appIds: string[] }> {
    const actor = checkActor(actorInput);
    this.notSelf(actor, userId);
    const user = await this.findUser(userId);
    const appIds = await this.erase(user);
    await this.record(actor, 'user.delete', user, `${appIds.length} app${appIds.length === 1 ? '' : 's'} deleted${appIds.length ? `: ${appIds.join(', ')}` : ''}`);
    return { appIds };
  }

  async purge(actorInput: AuditActor | undefined, beforeText: string, dryRun: boolean): Promise<{ users: number; apps: number; usageRows: number; appIds: string[] }> {
    const actor = checkActor(actorInput);
    const before = parseBefore(beforeText);
    const day = before.toISOString().slice(0, 10);
    const users = (await this.deps.users.createdBefore(before)).filter((user) => !this.spared(user));
    const apps = (await Promise.all(users.map((user) => this.deps.apps.listByOwner(user.id)))).flat();
    const appIds = apps.map((app) => app.appId);
    if (dryRun) {
      const usageRows = (await this.deps.usage.rows(undefined, undefined)).filter((row) => row.day < day).length;
      return { users: users.length, apps: apps.length, usageRows, appIds };
    }
    for (const user of users) await this.erase(user);
    const usageRows = await this.deps.usage.deleteBefore(day);
    const logEntries = await this.deps.logs.deleteOlderThan(before);
    await this.record(
      actor,
      'purge',
      undefined,
      `before ${before.toISOString()}: ${users.length} users, ${apps.length} apps, ${usageRows} usage rows, ${logEntries} log entries (operators spared)`,
    );
    return { users: users.length, apps: apps.length, usageRows, appIds };
  }

  async usage(actorInput: AuditActor | undefined, from: string, to: string): Promise<UsageExportRow[]> {
    const actor = checkActor(actorInput);
    for (const [name, day] of [['from', from], ['to', to]] as const) {
      if (day !== '' && !isDay(day)) throw invalidArgument('invalid_day', `${name} must be a day in the form 2030-01-31.`);
    }
    if (from && to && from > to) throw invalidArgument('invalid_day', 'from must not be after to.');
    const rows = await this.deps.usage.rows(from || undefined, to || undefined);
    const userIds = [...new Set(rows.map((row) => row.userId))];
    const users = new Map((await Promise.all(userIds.map((id) => this.deps.users.findById(id)))).flatMap((user) => (user ? [[user.id, user] as const] : [])));
    const apps = new Map((await this.deps.apps.findByIds([...new Set(rows.map((row) => row.app))])).map((app) => [app.id, app]));
    const exported = rows
      .map((row) => ({ ...row, email: users.get(row.userId)?.email ?? '', appName: apps.get(row.app)?.name ?? '' }))
      .sort((a, b) => compare(a.day, b.day) || compare(a.email, b.email) || compare(a.appId, b.appId) || compare(a.authStyle, b.authStyle) || compare(a.routeFamily, b.routeFamily));
    await this.record(actor, 'usage.export', undefined, `${from || 'the start'} to ${to || 'today'}: ${exported.length} rows`);
    return exported;
  }

  async listAudit(query: { pageSize: number; pageToken: string }): Promise<{ entries: AuditRecord[]; nextPageToken: string }> {
    const limit = pageSize(query.pageSize);
    const after: AuditCursor | undefined = openCursor(query.pageToken);
    const rows = await this.deps.audit.list(limit + 1, after);
    const entries = rows.slice(0, limit);
    const last = entries[entries.length - 1];
    return { entries, nextPageToken: rows.length > limit && last ? sealCursor(last.at, last.id) : '' };
  }

  async setAppLimit(actorInput: AuditActor | undefined, appId: string, limit: { exempt: boolean; perSecond: number; burst: number }): Promise<AppLimitRecord> {
    const actor = checkActor(actorInput);
    if (!limit.exempt) {
      if (!(Number.isFinite(limit.perSecond) && limit.perSecond > 0 && limit.perSecond <= 1_000_000)) {
        throw invalidArgument('invalid_limit', 'perSecond must be a number above 0 (at most 1000000), or set exempt instead.');
      }
      if (!(Number.isInteger(limit.burst) && limit.burst >= 1 && limit.burst <= 10_000_000)) {
        throw invalidArgument('invalid_limit', 'burst must be a whole number from 1 to 10000000: the requests the app may send at once.');
      }
    }
    const app = await this.findApp(appId);
    const record: AppLimitRecord = {
      appId: app.appId,
      exempt: limit.exempt,
      perSecond: limit.exempt ? 0 : limit.perSecond,
      burst: limit.exempt ? 0 : limit.burst,
      setAt: this.now(),
      setBy: actor,
    };
    await this.deps.limits.put(record);
    const owner = await this.deps.users.findById(app.ownerId);
    await this.record(actor, 'app_limit.set', owner, `${app.appId}: ${limit.exempt ? 'exempt from fair share' : `${limit.perSecond}/s, burst ${limit.burst}`}`);
    return record;
  }

  async clearAppLimit(actorInput: AuditActor | undefined, appId: string): Promise<void> {
    const actor = checkActor(actorInput);
    const app = await this.findApp(appId);
    if (!(await this.deps.limits.delete(app.appId))) throw notFound('app_limit_not_found', `${app.appId} has no limit of its own: it has the default.`);
    const owner = await this.deps.users.findById(app.ownerId);
    await this.record(actor, 'app_limit.clear', owner, `${app.appId}: back to the default limit`);
  }

  listAppLimits(): Promise<AppLimitRecord[]> {
    return this.deps.limits.list();
  }

  /** Everything of the user, the user last; each step is safe to repeat. The App IDs that went. */
  private async erase(user: UserRecord): Promise<string[]> {
    const apps = await this.deps.apps.listByOwner(user.id);
    const ids = apps.map((app) => app.id);
    const appIds = apps.map((app) => app.appId);
    await this.deps.apps.deleteAllOwned(user.id);
    this.deps.onChange();
    await this.deps.logs.deleteForApps(ids);
    await this.deps.usage.deleteForApps(ids);
    await this.deps.limits.deleteForAppIds(appIds);
    await this.deps.sessions.deleteForUser(user.id);
    if (user.provider !== LOCAL_PROVIDER) {
      // The provider's tokens outlive the account: without this, the next request with one would create it again.
      const now = this.now();
      await this.deps.sessions.put({
        id: deletedUserRecordId(user.key),
        userId: user.id,
        kind: 'deleted',
        issuedBefore: now,
        expiresAt: new Date(now.getTime() + DELETED_USER_MEMORY_MS),
      });
    }
    await this.deps.users.delete(user.id);
    return appIds;
  }

  /** Operators are never purged: by the configured emails, or because they were one when last seen (a group claim). */
  private spared(user: UserRecord): boolean {
    return user.operator === true || isOperator(this.deps.operators, user.email);
  }

  private notSelf(actor: AuditActor, userId: string): void {
    if (actor.kind === 'session' && actor.id === userId) {
      throw failedPrecondition('cannot_act_on_self', 'An operator cannot disable or delete their own account; ask another operator, or use the admin CLI.');
    }
  }

  private async findUser(userId: string): Promise<UserRecord> {
    const user = PATTERN.resourceId.test(userId) ? await this.deps.users.findById(userId) : undefined;
    if (!user) throw userNotFound();
    return user;
  }

  private async findApp(appId: string): Promise<AppRecord> {
    const app = PATTERN.appId.test(appId) ? await this.deps.apps.findByAppId(appId) : undefined;
    if (!app) throw notFound('app_not_found', 'No app has this App ID.');
    return app;
  }

  private async overviews(users: UserRecord[]): Promise<UserOverview[]> {
    const ids = users.map((user) => user.id);
    const [appCounts, totals] = await Promise.all([this.deps.apps.countByOwners(ids), this.deps.usage.totalsByUser(ids)]);
    return users.map((user) => {
      const used = totals.get(user.id);
      const moments = [user.createdAt, user.lastSeenAt, used?.lastAt].filter((m): m is Date => m !== undefined);
      return {
        user,
        disabled: user.disabledAt !== undefined,
        operator: this.spared(user),
        appCount: appCounts.get(user.id) ?? 0,
        requestCount: used?.requests ?? 0,
        lastActiveAt: new Date(Math.max(...moments.map((m) => m.getTime()))),
      };
    });
  }

  private async record(actor: AuditActor, action: AuditAction, target: UserRecord | undefined, detail: string): Promise<void> {
    const at = this.now();
    await this.deps.audit.append({ id: newLogId(at), at, actor, action, targetUserId: target?.id ?? '', targetEmail: target?.email ?? '', detail });
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
