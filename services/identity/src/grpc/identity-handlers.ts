import { identity } from '@sandbox/contracts';
import { unaryHandlers, unauthenticated, type CallContext, type Logger } from '@sandbox/runtime';
import type { AccountService } from '../domain/accounts';
import type { AdminService } from '../domain/admin';
import type { AppService } from '../domain/apps';
import type { ClassService } from '../domain/classes';
import type { ExerciseProgressService } from '../domain/exercises/progress';
import type { OperatorActors } from '../domain/operator-actors';
import type { RecordedRequests } from '../domain/recorded-requests';
import type { RequestLogService } from '../domain/request-logs';
import type { CredentialVerifier } from '../domain/verification';
import { toAdminUser, toApp, toAppLimit, toAuditEntry, toClassInfo, toClassView, toExerciseState, toIssued, toLogEntry, toUser } from './mappers';

export interface IdentityDomain {
  accounts: AccountService;
  apps: AppService;
  logs: RequestLogService;
  recorded: RecordedRequests;
  exercises: ExerciseProgressService;
  classes: ClassService;
  admin: AdminService;
  operators: OperatorActors;
  verifier: CredentialVerifier;
}

/** Every app RPC acts for an owner the gateway has verified; an empty owner is a caller bug, never "everyone". */
function owner(ownerId: string): string {
  if (ownerId === '') throw unauthenticated('owner_required', 'The request does not name a signed-in owner.');
  return ownerId;
}

/** Thin handlers: decode, call one domain function, encode. */
export function identityHandlers(domain: IdentityDomain, logger: Logger): identity.IdentityServiceServer {
  const { accounts, apps, logs, recorded, exercises, classes, admin, operators, verifier } = domain;
  /** Every admin RPC, reads too, first verifies the operator behind it; the audit log names who this returns. */
  const operator = (request: { operator?: identity.OperatorCredential }, context: CallContext) => operators.verify(request.operator, context.caller);
  return unaryHandlers<identity.IdentityServiceServer>(
    identity.IdentityServiceService,
    {
      async register(request) {
        const { user, session } = await accounts.register(request.email, request.password);
        return { user: toUser(user), session: { token: session.token, expiresAt: session.expiresAt.toISOString() } };
      },
      async login(request) {
        const { user, session } = await accounts.login(request.email, request.password, request.clientAddress);
        return { user: toUser(user), session: { token: session.token, expiresAt: session.expiresAt.toISOString() } };
      },
      async logout(request) {
        await accounts.logout(request.token);
        return {};
      },
      getSignUpOptions() {
        const policy = accounts.signUp;
        return { signUp: policy.mode, domains: policy.mode === 'domain' ? [...policy.domains] : [], localSignIn: policy.localSignIn };
      },
      async verifySession(request) {
        const { user, operator } = await accounts.verifySession(request.token);
        return { user: toUser(user), operator };
      },

      async listApps(request) {
        return { apps: (await apps.list(owner(request.ownerId))).map(toApp) };
      },
      async createApp(request) {
        const { app, issued } = await apps.create(owner(request.ownerId), {
          name: request.name,
          description: request.description,
          scopes: request.scopes?.scopes,
          redirectUris: request.redirectUris,
        });
        return { app: toApp(app), issued: toIssued(issued) };
      },
      async getApp(request) {
        return { app: toApp(await apps.get(owner(request.ownerId), request.id)) };
      },
      async deleteApp(request) {
        const result = await apps.delete(owner(request.ownerId), request.id, request.revoke);
        return { id: request.id, outcome: result.outcome, app: result.outcome === 'revoked' ? toApp(result.app) : undefined };
      },
      async regenerateSecret(request) {
        const { app, issued } = await apps.regenerateSecret(owner(request.ownerId), request.id);
        return { app: toApp(app), issued: toIssued(issued) };
      },
      async rotateCredentials(request) {
        const { app, issued } = await apps.rotate(owner(request.ownerId), request.id, {
          appSecret: request.appSecret,
          apiKey: request.apiKey,
          bearerToken: request.bearerToken,
        });
        return { app: toApp(app), issued: toIssued(issued) };
      },
      async setRedirectUris(request) {
        return { app: toApp(await apps.setRedirectUris(owner(request.ownerId), request.id, request.redirectUris)) };
      },
      async setScopes(request) {
        return { app: toApp(await apps.setScopes(owner(request.ownerId), request.id, request.scopes)) };
      },
      async resetOwner(request) {
        return { deleted: await apps.resetOwner(owner(request.ownerId)) };
      },

      async recordRequests(request, context) {
        await recorded.record(request.entries, request.usage, context.signal);
        return {};
      },
      async listExercises(request) {
        const views = await exercises.list(owner(request.ownerId));
        // Names of the apps that completed exercises, as their owner sees them now; a deleted app's name is gone with it.
        // Read only when something is done: a learner's screen polls every few seconds, mostly before anything is.
        const done = views.some((view) => view.doneWith);
        const names = new Map(done ? (await apps.list(request.ownerId)).map((app) => [app.id, app.name]) : []);
        return { exercises: views.map((view) => toExerciseState(view, names)) };
      },
      async joinClass(request) {
        return { class: toClassInfo(await classes.join(owner(request.ownerId), request.code)) };
      },
      async listMyClasses(request) {
        return { classes: (await classes.mine(owner(request.ownerId))).map((record) => toClassInfo({ record, learners: 0 })) };
      },
      async leaveClass(request) {
        await classes.leave(owner(request.ownerId), request.classId);
        return {};
      },
      async listRequestLogs(request) {
        const page = await logs.list(owner(request.ownerId), request.id, request.pageSize, request.pageToken);
        return { entries: page.entries.map(toLogEntry), nextPageToken: page.nextPageToken, total: page.total };
      },

      async verifyApiKey(request) {
        return { check: await verifier.verifyApiKey(request.apiKey) };
      },
      async verifyBearerToken(request) {
        return { check: await verifier.verifyBearerToken(request.bearerToken) };
      },
      async verifyBasic(request) {
        return { check: await verifier.verifyBasic(request.appId, request.appSecret) };
      },
      async lookupApp(request) {
        return verifier.lookupApp(request.appId);
      },
      async getSigningKey(request) {
        return verifier.getSigningKey(request.appId);
      },

      async adminListUsers(request, context) {
        await operator(request, context);
        const page = await admin.listUsers({ pageSize: request.pageSize, pageToken: request.pageToken, emailContains: request.emailContains });
        return { users: page.users.map(toAdminUser), nextPageToken: page.nextPageToken, total: page.total };
      },
      async adminGetUser(request, context) {
        await operator(request, context);
        const { overview, apps: owned } = await admin.getUser(request.userId);
        return { user: toAdminUser(overview), apps: owned.map(toApp) };
      },
      async adminSetUserDisabled(request, context) {
        const actor = await operator(request, context);
        return { user: toAdminUser(await admin.setDisabled(actor, request.userId, request.disabled)) };
      },
      async adminDeleteUser(request, context) {
        const actor = await operator(request, context);
        const { appIds } = await admin.deleteUser(actor, request.userId);
        return { userId: request.userId, appsDeleted: appIds.length, appIds };
      },
      async adminPurge(request, context) {
        const actor = await operator(request, context);
        const purged = await admin.purge(actor, request.before, request.dryRun);
        return { users: purged.users, apps: purged.apps, usageRows: purged.usageRows, appIds: purged.appIds };
      },
      async adminUsage(request, context) {
        const actor = await operator(request, context);
        const rows = await admin.usage(actor, request.from, request.to);
        return {
          rows: rows.map((row) => ({
            day: row.day,
            userId: row.userId,
            email: row.email,
            app: row.app,
            appId: row.appId,
            appName: row.appName,
            authStyle: row.authStyle,
            routeFamily: row.routeFamily,
            requests: row.requests,
          })),
        };
      },
      async adminListAudit(request, context) {
        await operator(request, context);
        const page = await admin.listAudit({ pageSize: request.pageSize, pageToken: request.pageToken });
        return { entries: page.entries.map(toAuditEntry), nextPageToken: page.nextPageToken };
      },
      async adminSetAppLimit(request, context) {
        const actor = await operator(request, context);
        const limit = await admin.setAppLimit(actor, request.appId, { exempt: request.exempt, perSecond: request.perSecond, burst: request.burst });
        return { limit: toAppLimit(limit) };
      },
      async adminClearAppLimit(request, context) {
        const actor = await operator(request, context);
        await admin.clearAppLimit(actor, request.appId);
        return {};
      },
      async adminCreateClass(request, context) {
        const actor = await operator(request, context);
        const created = await classes.create(actor, {
          name: request.name,
          startsAt: request.startsAt,
          endsAt: request.endsAt,
          signUpDomain: request.signUpDomain,
          ssoGroup: request.ssoGroup,
        });
        return { class: toClassInfo(created) };
      },
      async adminListClasses(request, context) {
        await operator(request, context);
        return { classes: (await classes.list()).map(toClassInfo) };
      },
      async adminGetClassView(request, context) {
        await operator(request, context);
        return toClassView(await classes.view(request.classId, request.stuckMinutes));
      },
      async adminDeleteClass(request, context) {
        const actor = await operator(request, context);
        return { learners: await classes.delete(actor, request.classId) };
      },
      async listAppLimits() {
        return { limits: (await admin.listAppLimits()).map(toAppLimit) };
      },
    },
    logger,
  );
}
