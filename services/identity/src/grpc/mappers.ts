import { identity } from '@sandbox/contracts';
import type { AppRecord } from '../stores/app-store';
import type { UserRecord } from '../stores/user-store';
import type { IssuedCredentials } from '../domain/apps';
import type { RequestLogRecord } from '../stores/request-log-store';
import type { UserOverview } from '../domain/admin';
import type { ExerciseView } from '../domain/exercises/progress';
import { shownJoinCode, type ClassView, type ClassWithCount } from '../domain/classes';
import type { AuditActor, AuditRecord } from '../stores/audit-store';
import type { AppLimitRecord } from '../stores/app-limit-store';

/** The one place an app record becomes a message: metadata only, never a hash or ciphertext. */
export function toApp(app: AppRecord): identity.App {
  const { appSecret, apiKey, bearerToken } = app.credentials;
  const meta = (c: { createdAt: Date; hint: string }) => ({ createdAt: c.createdAt.toISOString(), hint: c.hint });
  return {
    id: app.id,
    ownerId: app.ownerId,
    name: app.name,
    description: app.description,
    appId: app.appId,
    redirectUris: [...app.redirectUris],
    scopes: [...app.scopes],
    status: app.status === 'active' ? identity.AppStatus.APP_STATUS_ACTIVE : identity.AppStatus.APP_STATUS_REVOKED,
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
    credentials: { appSecret: meta(appSecret), apiKey: meta(apiKey), bearerToken: meta(bearerToken) },
  };
}

export function toUser(user: UserRecord): identity.User {
  return { id: user.id, email: user.email, createdAt: user.createdAt.toISOString(), provider: user.provider };
}

export function toIssued(issued: IssuedCredentials): identity.IssuedCredentials {
  return { appSecret: issued.appSecret, apiKey: issued.apiKey, bearerToken: issued.bearerToken };
}

const isoOrEmpty = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

export function toExerciseState(view: ExerciseView, appNames: ReadonlyMap<string, string>): identity.ExerciseState {
  const { exercise } = view;
  return {
    id: exercise.id,
    group: exercise.group,
    title: exercise.title,
    task: exercise.task,
    doneWhen: exercise.doneWhen,
    docs: exercise.docs,
    snippet: exercise.snippet ?? '',
    status: view.status,
    hint: view.hint,
    firstAttemptAt: isoOrEmpty(view.firstAttemptAt),
    lastAttemptAt: isoOrEmpty(view.lastAttemptAt),
    doneAt: isoOrEmpty(view.doneAt),
    doneWithApp: (view.doneWith && appNames.get(view.doneWith)) ?? '',
  };
}

export function toLogEntry(entry: RequestLogRecord): identity.RequestLogEntry {
  return {
    app: entry.app,
    time: entry.time.toISOString(),
    method: entry.method,
    path: entry.path,
    status: entry.status,
    authStyle: entry.authStyle,
    latencyMs: entry.latencyMs,
    requestId: entry.requestId,
    appId: '',
    failure: entry.failure ?? '',
    facts: {},
  };
}

export function toAdminUser(overview: UserOverview): identity.AdminUser {
  return {
    user: toUser(overview.user),
    disabled: overview.disabled,
    operator: overview.operator,
    appCount: overview.appCount,
    requestCount: overview.requestCount,
    lastActiveAt: overview.lastActiveAt.toISOString(),
  };
}

const toActor = (actor: AuditActor): identity.Actor => ({ kind: actor.kind, id: actor.id, email: actor.email, statedUser: actor.statedUser ?? '' });

export function toAuditEntry(entry: AuditRecord): identity.AuditEntry {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: toActor(entry.actor),
    action: entry.action,
    targetUserId: entry.targetUserId,
    targetEmail: entry.targetEmail,
    detail: entry.detail,
  };
}

export function toAppLimit(limit: AppLimitRecord): identity.AppLimit {
  return {
    appId: limit.appId,
    exempt: limit.exempt,
    perSecond: limit.perSecond,
    burst: limit.burst,
    setAt: limit.setAt.toISOString(),
    setBy: toActor(limit.setBy),
  };
}

export function toClassInfo({ record, learners }: ClassWithCount): identity.ClassInfo {
  return {
    id: record.id,
    name: record.name,
    startsAt: record.startsAt.toISOString(),
    endsAt: record.endsAt.toISOString(),
    joinCode: shownJoinCode(record.joinCode),
    signUpDomain: record.signUpDomain ?? '',
    ssoGroup: record.ssoGroup ?? '',
    createdAt: record.createdAt.toISOString(),
    learners,
  };
}

export function toClassView(view: ClassView): identity.AdminGetClassViewResponse {
  return {
    class: toClassInfo(view.class),
    stuckMinutes: view.stuckMinutes,
    exercises: view.exercises.map((row) => ({
      id: row.id,
      title: row.title,
      group: row.group,
      done: row.done,
      attempted: row.attempted,
      stuck: row.stuck,
      commonRefusalHint: row.commonRefusal?.hint ?? '',
      commonRefusalLearners: row.commonRefusal?.learners ?? 0,
    })),
    learners: view.learners.map((learner) => ({
      userId: learner.userId,
      email: learner.email,
      joinedAt: learner.joinedAt.toISOString(),
      done: learner.done,
      cells: learner.cells.map((cell) => ({
        exerciseId: cell.exerciseId,
        status: cell.status,
        stuck: cell.stuck,
        firstAttemptAt: isoOrEmpty(cell.firstAttemptAt),
        doneAt: isoOrEmpty(cell.doneAt),
        hint: cell.hint ?? '',
      })),
    })),
  };
}
