import { failedPrecondition, invalidArgument, notFound } from '@sandbox/runtime';
import type { AppLimitRecord, AppLimitStore } from '../stores/app-limit-store';
import type { AppRecord, AppStore } from '../stores/app-store';
import type { AuditAction, AuditActor, AuditCursor, AuditRecord, AuditStore } from '../stores/audit-store';
import type { ClassMembershipStore } from '../stores/class-membership-store';
import type { ExerciseProgressStore } from '../stores/exercise-progress-store';
import type { RequestLogStore } from '../stores/request-log-store';
import type { SessionStore } from '../stores/session-store';
import type { UsageRecord, UsageStore } from '../stores/usage-store';
import type { UserCursor, UserRecord, UserStore } from '../stores/user-store';
import { DELETED_USER_MEMORY_MS, deletedUserRecordId } from './accounts';
import { AppLeftovers } from './app-leftovers';
import { PATTERN } from './credentials';
import { isOperator, type OperatorRule } from './operators';
import type { PageTokens } from './page-tokens';
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
  exerciseProgress: ExerciseProgressStore;
  /** A deleted learner leaves every class (the classes stay). */
  classMemberships: ClassMembershipStore;
  operators: OperatorRule;
  /** Signs the lists' page tokens, as the request logs' (page-tokens.ts). */
  tokens: PageTokens;
  /** Called after apps change, so cached credential answers are dropped at once on every replica (awaited: the answer leaves after). */
  onChange: () => unknown;
  /** Called after a user's sessions end (deletion, purge), so remembered sessions are dropped on every replica (awaited). */
  onSessionsChange: () => unknown;
  now?: () => Date;
}

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;
const LOCAL_PROVIDER = 'password';

const userNotFound = () => notFound('user_not_found', 'No user has this id.');

/**
 * What a page token is bound to (page-tokens.ts signs it with this): the
 * list, and for users the filter, so a token of one list or filter is refused
 * by another rather than silently paging something else.
 */
const USERS_LIST = (emailContains: string) => `admin/users?email=${emailContains}`;
const AUDIT_LIST = 'admin/audit';

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

/**
 * What operators do (docs/operators.md): look at users, disable, enable or
 * delete one, purge everything from before a moment, export usage, and set
 * an app's own fair-share limit. Every change is written to the audit log
 * once it has succeeded (a dry run changes nothing and is not). Each change
 * is a sequence of steps that can each be repeated, so the same request sent
 * again after a failure half-way finishes the job.
 */
export class AdminService {
  private readonly now: () => Date;
  private readonly leftovers: AppLeftovers;

  constructor(private readonly deps: AdminDeps) {
    this.now = deps.now ?? (() => new Date());
    this.leftovers = new AppLeftovers(deps);
  }

  async listUsers(query: {
    pageSize: number;
    pageToken: string;
    emailContains: string;
  }): Promise<{ users: UserOverview[]; nextPageToken: string; total: number }> {
    const limit = pageSize(query.pageSize);
    // Emails are stored canonical (validation.ts): NFC, lower case.
    const emailContains = query.emailContains.trim().normalize('NFC').toLowerCase();
    const list = USERS_LIST(emailContains);
    const cursor = query.pageToken === '' ? undefined : this.deps.tokens.open(list, query.pageToken);
    const after: UserCursor | undefined = cursor && { createdAt: cursor.time, id: cursor.id };
    const [rows, total] = await Promise.all([this.deps.users.list({ limit: limit + 1, after, emailContains }), this.deps.users.count(emailContains)]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      users: await this.overviews(page),
      nextPageToken: rows.length > limit && last ? this.deps.tokens.seal(list, { time: last.createdAt, id: last.id }) : '',
      total,
    };
  }

  async getUser(userId: string): Promise<{ overview: UserOverview; apps: AppRecord[] }> {
    const user = await this.findUser(userId);
    const [overview] = await this.overviews([user]);
    return { overview: overview!, apps: await this.deps.apps.listByOwner(user.id) };
  }

  async setDisabled(actor: AuditActor, userId: string, disabled: boolean): Promise<UserOverview> {
    this.notSelf(actor, userId);
    const user = await this.findUser(userId);
    // The user first (one write: their sessions and sign-ins are refused from
    // then on), then their apps, each marked so credential checks refuse it
    // without reading the user. Both steps are idempotent, so a retry after a
    // failure between them finishes the job. Sessions are kept, only refused
    // (account_disabled, which tells the learner what happened), and work
    // again after an enable, as the provider's tokens do.
    const updated = (await this.deps.users.update(user.id, { disabledAt: disabled ? (user.disabledAt ?? this.now()) : null })) ?? user;
    await this.deps.apps.setOwnerDisabled(user.id, disabled);
    await this.deps.onChange();
    await this.record(
      actor,
      disabled ? 'user.disable' : 'user.enable',
      updated,
      disabled ? 'sign-in, sessions and app credentials refused' : 'sign-in, sessions and app credentials work again',
    );
    const [overview] = await this.overviews([updated]);
    return overview!;
  }

  async deleteUser(actor: AuditActor, userId: string): Promise<{ appIds: string[] }> {
    this.notSelf(actor, userId);
    const user = await this.findUser(userId);
    const appIds = await this.erase(user);
    await this.record(actor, 'user.delete', user, `${counted(appIds.length, 'app')} deleted${appIds.length ? `: ${appIds.join(', ')}` : ''}`);
    return { appIds };
  }

  /**
   * Every user created before the moment who is not an operator, deleted as
   * deleteUser does; usage rows of days before its day; request-log entries
   * older than it. A dry run changes nothing, says what would go, and is not
   * audited (it changes nothing; the real run that follows is).
   */
  async purge(actor: AuditActor, beforeText: string, dryRun: boolean): Promise<{ users: number; apps: number; usageRows: number; appIds: string[] }> {
    const before = parseBefore(beforeText);
    const day = before.toISOString().slice(0, 10);
    const users = (await this.deps.users.createdBefore(before)).filter((user) => !this.spared(user));
    if (dryRun) {
      const appIds = (await Promise.all(users.map((user) => this.deps.apps.listByOwner(user.id)))).flat().map((app) => app.appId);
      return { users: users.length, apps: appIds.length, usageRows: await this.deps.usage.countBefore(day), appIds };
    }
    // By date first, so the counts are those the dry run gave (the users' own rows would go with them anyway).
    const usageRows = await this.deps.usage.deleteBefore(day);
    const logEntries = await this.deps.logs.deleteOlderThan(before);
    const appIds: string[] = [];
    for (const user of users) appIds.push(...(await this.erase(user)));
    await this.record(
      actor,
      'purge',
      undefined,
      `before ${before.toISOString()}: ${counted(users.length, 'user')}, ${counted(appIds.length, 'app')}, ${counted(usageRows, 'usage row')}, ${counted(logEntries, 'log entry', 'log entries')} deleted (operators spared)`,
    );
    return { users: users.length, apps: appIds.length, usageRows, appIds };
  }

  async usage(actor: AuditActor, from: string, to: string): Promise<UsageExportRow[]> {
    for (const [name, day] of [
      ['from', from],
      ['to', to],
    ] as const) {
      if (day !== '' && !isDay(day)) throw invalidArgument('invalid_day', `${name} must be a day in the form 2030-01-31.`);
    }
    if (from && to && from > to) throw invalidArgument('invalid_day', 'from must not be after to.');
    const rows = await this.deps.usage.rows(from || undefined, to || undefined);
    const userIds = [...new Set(rows.map((row) => row.userId))];
    const users = new Map((await this.deps.users.findByIds(userIds)).map((user) => [user.id, user]));
    const apps = new Map((await this.deps.apps.findByIds([...new Set(rows.map((row) => row.app))])).map((app) => [app.id, app]));
    const exported = rows
      .map((row) => ({ ...row, email: users.get(row.userId)?.email ?? '', appName: apps.get(row.app)?.name ?? '' }))
      .sort(
        (a, b) =>
          compare(a.day, b.day) ||
          compare(a.email, b.email) ||
          compare(a.appId, b.appId) ||
          compare(a.authStyle, b.authStyle) ||
          compare(a.routeFamily, b.routeFamily),
      );
    await this.record(actor, 'usage.export', undefined, `${from || 'the start'} to ${to || 'today'}: ${counted(exported.length, 'row')}`);
    return exported;
  }

  async listAudit(query: { pageSize: number; pageToken: string }): Promise<{ entries: AuditRecord[]; nextPageToken: string }> {
    const limit = pageSize(query.pageSize);
    const cursor = query.pageToken === '' ? undefined : this.deps.tokens.open(AUDIT_LIST, query.pageToken);
    const after: AuditCursor | undefined = cursor && { at: cursor.time, id: cursor.id };
    const rows = await this.deps.audit.list(limit + 1, after);
    const entries = rows.slice(0, limit);
    const last = entries[entries.length - 1];
    return { entries, nextPageToken: rows.length > limit && last ? this.deps.tokens.seal(AUDIT_LIST, { time: last.at, id: last.id }) : '' };
  }

  async setAppLimit(actor: AuditActor, appId: string, limit: { exempt: boolean; perSecond: number; burst: number }): Promise<AppLimitRecord> {
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

  async clearAppLimit(actor: AuditActor, appId: string): Promise<void> {
    const app = await this.findApp(appId);
    if (!(await this.deps.limits.delete(app.appId))) throw notFound('app_limit_not_found', `${app.appId} has no limit of its own: it has the default.`);
    const owner = await this.deps.users.findById(app.ownerId);
    await this.record(actor, 'app_limit.clear', owner, `${app.appId}: back to the default limit`);
  }

  listAppLimits(): Promise<AppLimitRecord[]> {
    return this.deps.limits.list();
  }

  /**
   * Everything of the user, the user last; each step is safe to repeat, so
   * sending the same deletion again after a failure finishes it. The App IDs
   * that went in this call.
   */
  private async erase(user: UserRecord): Promise<string[]> {
    const owned = await this.deps.apps.listByOwner(user.id);
    // The apps first, in one write: their credentials stop at once, on every replica (onChange).
    const deleted = new Set(await this.deps.apps.deleteAllOwned(user.id));
    await this.deps.onChange();
    const gone = owned.filter((app) => deleted.has(app.id));
    await this.leftovers.remove(gone);
    // By user as well: rows of apps an earlier, failed attempt already deleted (their logs and limits go with the orphan sweep).
    await this.deps.usage.deleteForUser(user.id);
    await this.deps.exerciseProgress.deleteForUser(user.id);
    await this.deps.classMemberships.deleteForUser(user.id);
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
    // Remembered sessions of the user go only now: one verified between the apps' change and the deletion would be remembered again.
    await this.deps.onSessionsChange();
    return gone.map((app) => app.appId);
  }

  /**
   * Operators are never purged: a local account by the configured emails, and
   * anyone who was an operator when last seen (an identity provider's user is
   * one only by what their token says: a verified email or a group).
   */
  private spared(user: UserRecord): boolean {
    return user.operator === true || (user.provider === LOCAL_PROVIDER && isOperator(this.deps.operators, user.email));
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
/** "1 app", "2 apps": the audit log's details are read by people. */
const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
