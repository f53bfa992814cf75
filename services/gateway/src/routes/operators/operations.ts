import type { identity, oauth } from '@sandbox/contracts';
import { failedPrecondition, type CallOptionsLite, type Logger, type PromiseClient } from '@sandbox/runtime';
import { classSummaryJson } from '../portal/class-routes';
import { appJson } from '../portal/portal-routes';
import { classGridCsv, classGridFileName } from './class-csv';
import { usageCsv } from './usage-csv';

/*
 * What an operator can do (docs/operators.md), in one place: the admin API's
 * routes (admin-routes.ts) and the CLI (admin/cli.ts) both call these, so
 * there is one way of doing each thing, and one JSON for each answer (the
 * CLI's --json prints exactly what the API answers).
 */

type IdentityClient = Pick<
  PromiseClient<identity.IdentityServiceClient>,
  | 'adminListUsers'
  | 'adminGetUser'
  | 'adminSetUserDisabled'
  | 'adminDeleteUser'
  | 'adminPurge'
  | 'adminUsage'
  | 'adminListAudit'
  | 'adminSetAppLimit'
  | 'adminClearAppLimit'
  | 'listAppLimits'
  | 'adminCreateClass'
  | 'adminListClasses'
  | 'adminGetClassView'
  | 'adminDeleteClass'
>;
type OAuthClient = Pick<PromiseClient<oauth.OAuthServiceClient>, 'forgetApps'>;

/**
 * Who asks, as passed on for identity to verify itself (the proto's
 * OperatorCredential; docs/security.md, "Operator actions"): an operator's
 * portal session, or the CLI, which its certificate identifies. The audit
 * log names whom identity verified, never what is written here.
 */
export interface Operator {
  credential: identity.OperatorCredential;
  /** The session's user as the gateway verified it, for the early refusal to act on oneself. */
  sessionUserId?: string;
}

/** An operator's portal session: its token goes to identity with every admin call. */
export const sessionOperator = (session: { user: identity.User; token: string }): Operator => ({
  credential: { sessionToken: session.token, statedUser: '' },
  sessionUserId: session.user.id,
});

// ---- the JSON of each answer ----------------------------------------------------

export function adminUserJson(admin: identity.AdminUser | undefined) {
  const user = admin?.user;
  return {
    id: user?.id ?? '',
    email: user?.email ?? '',
    provider: user?.provider ?? '',
    createdAt: user?.createdAt ?? '',
    disabled: admin?.disabled ?? false,
    operator: admin?.operator ?? false,
    appCount: admin?.appCount ?? 0,
    requestCount: admin?.requestCount ?? 0,
    lastActiveAt: admin?.lastActiveAt ?? '',
  };
}
export type AdminUserJson = ReturnType<typeof adminUserJson>;

/** statedUser: the CLI's "<os user>@<host>" as it said it (not verified); only present when there is one. */
const actorJson = (actor: identity.Actor | undefined) => ({
  kind: actor?.kind ?? '',
  id: actor?.id ?? '',
  email: actor?.email ?? '',
  ...(actor?.statedUser ? { statedUser: actor.statedUser } : {}),
});

function auditEntryJson(entry: identity.AuditEntry) {
  return {
    id: entry.id,
    at: entry.at,
    actor: actorJson(entry.actor),
    action: entry.action,
    targetUserId: entry.targetUserId,
    targetEmail: entry.targetEmail,
    detail: entry.detail,
  };
}

/** An app's own limit: exempt, or its rate and burst (never both). */
export function appLimitJson(limit: identity.AppLimit | undefined) {
  return {
    appId: limit?.appId ?? '',
    exempt: limit?.exempt ?? false,
    ...(limit?.exempt ? {} : { perSecond: limit?.perSecond ?? 0, burst: limit?.burst ?? 0 }),
    setAt: limit?.setAt ?? '',
    setBy: actorJson(limit?.setBy),
  };
}

/** A class as operators see it: its join code, rules and learner count; a rule not set is left out. */
export function classJson(info: identity.ClassInfo | undefined) {
  return {
    ...classSummaryJson(info),
    joinCode: info?.joinCode ?? '',
    ...(info?.signUpDomain ? { signUpDomain: info.signUpDomain } : {}),
    ...(info?.ssoGroup ? { ssoGroup: info.ssoGroup } : {}),
    createdAt: info?.createdAt ?? '',
    learners: info?.learners ?? 0,
  };
}

/** The class view: the class, each exercise across it, each learner's cells by exercise id (empty fields left out). */
export function classViewJson(view: identity.AdminGetClassViewResponse) {
  const optional = (name: string, value: string) => (value ? { [name]: value } : {});
  return {
    class: classJson(view.class),
    stuckMinutes: view.stuckMinutes,
    exercises: view.exercises.map((e) => ({
      id: e.id,
      title: e.title,
      group: e.group,
      done: e.done,
      attempted: e.attempted,
      stuck: e.stuck,
      ...(e.commonRefusalHint ? { commonRefusal: { hint: e.commonRefusalHint, learners: e.commonRefusalLearners } } : {}),
    })),
    learners: view.learners.map((learner) => ({
      userId: learner.userId,
      email: learner.email,
      joinedAt: learner.joinedAt,
      done: learner.done,
      cells: Object.fromEntries(
        learner.cells.map((cell) => [
          cell.exerciseId,
          {
            status: cell.status,
            stuck: cell.stuck,
            ...optional('firstAttemptAt', cell.firstAttemptAt),
            ...optional('doneAt', cell.doneAt),
            ...optional('hint', cell.hint),
          },
        ]),
      ) as Record<string, { status: string; stuck: boolean; firstAttemptAt?: string; doneAt?: string; hint?: string }>,
    })),
  };
}
export type ClassJson = ReturnType<typeof classJson>;
export type ClassViewJson = ReturnType<typeof classViewJson>;

/** What POST /api/admin/classes and `classes create` send. */
export interface NewClass {
  name: string;
  startsAt: string;
  endsAt: string;
  signUpDomain?: string;
  ssoGroup?: string;
}

/** What PUT /api/admin/apps/:appId/limit and `limit` set. */
export type LimitSetting = { exempt: true } | { perSecond: number; burst: number };

/** An RFC 3339 moment, or a bare date taken as its midnight UTC (an operator types `--before 2030-06-30`). */
export const momentOf = (before: string) => (/^\d{4}-\d{2}-\d{2}$/.test(before) ? `${before}T00:00:00.000Z` : before);

/** The file name of a usage export: `usage-<from>-<to>.csv`, an open bound named as such. */
export const usageFileName = (from: string | undefined, to: string | undefined) => `usage-${from || 'start'}-${to || 'end'}.csv`;

// ---- the operations ----------------------------------------------------------------

export class AdminOperations {
  constructor(
    private readonly identity: IdentityClient,
    private readonly oauth: OAuthClient,
    private readonly logger?: Logger,
  ) {}

  async listUsers(operator: Operator, query: { pageSize?: number; pageToken?: string; email?: string }, call?: CallOptionsLite) {
    const page = await this.identity.adminListUsers(
      { operator: operator.credential, pageSize: query.pageSize ?? 0, pageToken: query.pageToken ?? '', emailContains: query.email ?? '' },
      call,
    );
    return { users: page.users.map(adminUserJson), total: page.total, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }

  /** The user and their apps: metadata only, never a secret (the portal's App JSON). */
  async getUser(operator: Operator, userId: string, call?: CallOptionsLite) {
    const found = await this.identity.adminGetUser({ operator: operator.credential, userId }, call);
    return { ...adminUserJson(found.user), apps: found.apps.map(appJson) };
  }

  async setDisabled(operator: Operator, userId: string, disabled: boolean, call?: CallOptionsLite) {
    return adminUserJson((await this.identity.adminSetUserDisabled({ operator: operator.credential, userId, disabled }, call)).user);
  }

  /**
   * The user, their apps, credentials, tokens, logs and OAuth state. The
   * order makes a retry after any failure finish the job: their App IDs
   * are read first, then oauth forgets the apps' state, and only then does
   * identity delete the user. Deleting first would lose the App IDs, so a
   * failure of the forgetting could never be retried, and the state would
   * stay behind naming apps nobody can find. A client still running could
   * write new OAuth state between the two steps: a second forgetting after
   * the deletion sweeps that up (it is refused anyway once the app is gone,
   * so a failure there is only logged).
   */
  async deleteUser(operator: Operator, userId: string, call?: CallOptionsLite) {
    // Identity refuses this too, but only at step 3: by then oauth would have forgotten the operator's own apps' state.
    if (operator.sessionUserId === userId)
      throw failedPrecondition('cannot_act_on_self', 'An operator cannot delete their own account; another operator can, or the CLI.');
    const { apps } = await this.identity.adminGetUser({ operator: operator.credential, userId }, call);
    await this.forget(
      apps.map((app) => app.appId),
      call,
    );
    const deleted = await this.identity.adminDeleteUser({ operator: operator.credential, userId }, call);
    await this.forgetAfterwards(deleted.appIds, call);
    return { id: deleted.userId || userId, status: 'deleted' as const, appsDeleted: deleted.appsDeleted };
  }

  /**
   * Every non-operator user created before `before`, as deleteUser does
   * each, and the usage counted before it. A dry run only says what would
   * go. The real one runs a dry run first to learn the App IDs, so oauth
   * forgets them before identity deletes anything (the same order, for the
   * same reason, as deleteUser), then sweeps again for the apps of the real
   * run (a `before` in the future may take in users who signed up since).
   */
  async purge(operator: Operator, request: { before: string; dryRun?: boolean }, call?: CallOptionsLite) {
    const before = momentOf(request.before);
    const dryRun = request.dryRun ?? false;
    const preview = await this.identity.adminPurge({ operator: operator.credential, before, dryRun: true }, call);
    let result = preview;
    if (!dryRun) {
      await this.forget(preview.appIds, call);
      result = await this.identity.adminPurge({ operator: operator.credential, before, dryRun: false }, call);
      await this.forgetAfterwards(result.appIds, call);
    }
    return { before, dryRun, users: result.users, apps: result.apps, usageRows: result.usageRows };
  }

  /** Requests per day, user, app, auth style and route family, from `from` to `to` (UTC days, both included; absent: no bound). Audited by identity. */
  async usage(operator: Operator, range: { from?: string; to?: string }, call?: CallOptionsLite): Promise<identity.UsageRow[]> {
    return (await this.identity.adminUsage({ operator: operator.credential, from: range.from ?? '', to: range.to ?? '' }, call)).rows;
  }

  /** The same, as CSV (usage-csv.ts), with its file name. */
  async usageExport(operator: Operator, range: { from?: string; to?: string }, call?: CallOptionsLite) {
    return { fileName: usageFileName(range.from, range.to), csv: usageCsv(await this.usage(operator, range, call)) };
  }

  /** The audit log, newest first. */
  async audit(operator: Operator, query: { pageSize?: number; pageToken?: string }, call?: CallOptionsLite) {
    const page = await this.identity.adminListAudit({ operator: operator.credential, pageSize: query.pageSize ?? 0, pageToken: query.pageToken ?? '' }, call);
    return { entries: page.entries.map(auditEntryJson), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }

  async listAppLimits(call?: CallOptionsLite) {
    return { limits: (await this.identity.listAppLimits({}, call)).limits.map(appLimitJson) };
  }

  async setAppLimit(operator: Operator, appId: string, setting: LimitSetting, call?: CallOptionsLite) {
    const limit = 'exempt' in setting ? { exempt: true, perSecond: 0, burst: 0 } : { exempt: false, ...setting };
    const request = { operator: operator.credential, appId, ...limit };
    return appLimitJson((await this.identity.adminSetAppLimit(request, call)).limit);
  }

  async clearAppLimit(operator: Operator, appId: string, call?: CallOptionsLite) {
    await this.identity.adminClearAppLimit({ operator: operator.credential, appId }, call);
    return { appId, status: 'cleared' as const };
  }

  /** Creates a class with a fresh join code (audited by identity). */
  async createClass(operator: Operator, input: NewClass, call?: CallOptionsLite) {
    const created = await this.identity.adminCreateClass(
      {
        operator: operator.credential,
        name: input.name,
        startsAt: input.startsAt,
        endsAt: input.endsAt,
        signUpDomain: input.signUpDomain ?? '',
        ssoGroup: input.ssoGroup ?? '',
      },
      call,
    );
    return classJson(created.class);
  }

  /** Every class, newest first. */
  async listClasses(operator: Operator, call?: CallOptionsLite) {
    return { classes: (await this.identity.adminListClasses({ operator: operator.credential }, call)).classes.map(classJson) };
  }

  /** The class as a grid of its learners by exercise; stuckMinutes absent: identity's default (15). */
  async classView(operator: Operator, classId: string, stuckMinutes?: number, call?: CallOptionsLite) {
    return classViewJson(await this.identity.adminGetClassView({ operator: operator.credential, classId, stuckMinutes: stuckMinutes ?? 0 }, call));
  }

  /** The grid as CSV (class-csv.ts), with its file name. */
  async classCsv(operator: Operator, classId: string, stuckMinutes?: number, call?: CallOptionsLite) {
    const view = await this.classView(operator, classId, stuckMinutes, call);
    return { fileName: classGridFileName(view.class.name), csv: classGridCsv(view) };
  }

  /** The class and its memberships (audited by identity); the learners' progress stays theirs. */
  async deleteClass(operator: Operator, classId: string, call?: CallOptionsLite) {
    const deleted = await this.identity.adminDeleteClass({ operator: operator.credential, classId }, call);
    return { id: classId, status: 'deleted' as const, learners: deleted.learners };
  }

  private async forget(appIds: readonly string[], call?: CallOptionsLite): Promise<void> {
    if (appIds.length) await this.oauth.forgetApps({ appIds: [...appIds] }, call);
  }

  private async forgetAfterwards(appIds: readonly string[], call?: CallOptionsLite): Promise<void> {
    try {
      await this.forget(appIds, call);
    } catch (error) {
      this.logger?.warn(
        { apps: appIds.length, err: error instanceof Error ? error.message : String(error) },
        'OAuth state written during a deletion was not swept; it is refused and expires on its own',
      );
    }
  }
}
