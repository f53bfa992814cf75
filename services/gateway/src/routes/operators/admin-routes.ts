import { z } from 'zod';
import { AdminOperations, sessionOperator, type LimitSetting } from './operations';
import { USAGE_COLUMNS } from './usage-csv';
import { sessionOf } from '../../auth/scheme';
import type { GatewayDeps } from '../../deps';
import type { RouteContext } from '../../http/context';
import { inputOf, timestamp, type Contract } from '../../http/contract';
import { csvAttachment, json } from '../../http/reply';
import { routeOf, type Route, type RouteSpec } from '../../http/route';
import { appSchema, pageQuery } from '../portal/portal-routes';

/** Every row here is for operators (http/route-family.ts). */
const route = routeOf('operators');

/*
 * The operators' API (docs/operators.md): thin rows over AdminOperations,
 * which the CLI uses too. Every row is operator-only (route.ts): anyone but
 * an operator's portal session gets an unknown path's 404, and the map and
 * the OpenAPI document leave these rows out for them. Never rate-limited
 * (an operator must be able to act during a flood) and never stored by a
 * cache (the answers name people).
 */

// ---- schemas: what the dispatcher validates and the operator's OpenAPI document shows ----

const day = (name: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: `${name} must be a UTC day, YYYY-MM-DD` })
    .optional();
const userPath = z.object({ id: z.string().meta({ description: "The user's id, from GET /api/admin/users.", example: '66f1c0a95e2b4d7a9c3e1f21' }) });
const appPath = z.object({ appId: z.string().meta({ description: 'The App ID (client_id).', example: 'app_Xq3V0d5yH2kq8Jr1mT9bWg' }) });
const actorSchema = z
  .object({
    kind: z.string().meta({ description: '"session": an operator signed in to the portal; "cli": the admin CLI.', example: 'session' }),
    id: z.string().meta({
      description: 'What identity verified: the operator\'s user id, or the CLI\'s certificate identity ("cli").',
      example: '66f1c0a95e2b4d7a9c3e1f21',
    }),
    email: z.string().meta({ description: "The operator's email, when known.", example: 'ops@example.org' }),
    statedUser: z.string().optional().meta({ description: 'The CLI only: the OS user and host it said it runs as. Not verified.', example: 'ops@admin-7d9f' }),
  })
  .meta({ id: 'AdminActor' });

const adminUser = z
  .object({
    id: z.string(),
    email: z.string(),
    provider: z.string().meta({ example: 'password' }),
    createdAt: timestamp,
    disabled: z.boolean().meta({ description: 'A disabled user cannot sign in, and their apps are refused.' }),
    operator: z.boolean(),
    appCount: z.number().int(),
    requestCount: z.number().int().meta({ description: "Requests made with the user's apps, as counted for usage." }),
    lastActiveAt: z.string().meta({ description: 'The latest sign-up, sign-in or request with one of their apps.', example: '2030-01-02T09:30:00.000Z' }),
  })
  .meta({
    id: 'AdminUser',
    example: {
      id: '66f1c0a95e2b4d7a9c3e1f21',
      email: 'learner@example.org',
      provider: 'password',
      createdAt: '2030-01-01T10:00:00.000Z',
      disabled: false,
      operator: false,
      appCount: 2,
      requestCount: 340,
      lastActiveAt: '2030-01-02T09:30:00.000Z',
    },
  });
const userPage = z
  .object({ users: z.array(adminUser), total: z.number().int().meta({ description: 'Users matching, on every page.' }), nextPageToken: z.string().optional() })
  .meta({ id: 'AdminUserPage' });
const userWithApps = adminUser
  .extend({ apps: z.array(appSchema) })
  .meta({ id: 'AdminUserWithApps', description: 'A user and their apps: metadata only, never a secret.' });
const deleted = z
  .object({ id: z.string(), status: z.literal('deleted'), appsDeleted: z.number().int() })
  .meta({ id: 'AdminUserDeleted', example: { id: '66f1c0a95e2b4d7a9c3e1f21', status: 'deleted', appsDeleted: 2 } });
const purgeBody = z
  .strictObject({
    before: z
      .string({ error: (issue) => (issue.input === undefined ? 'before is required' : 'before must be a string') })
      .meta({ description: 'Users created before this moment go: an RFC 3339 time, or a day (its midnight, UTC).', example: '2030-06-30' }),
    dryRun: z.boolean({ error: 'dryRun must be true or false' }).optional().meta({ description: 'true: only count what would go.' }),
  })
  .meta({ id: 'Purge' });
const purged = z
  .object({
    before: timestamp,
    dryRun: z.boolean(),
    users: z.number().int(),
    apps: z.number().int(),
    usageRows: z.number().int().meta({ description: 'Usage counts of days before `before`.' }),
  })
  .meta({ id: 'PurgeResult', example: { before: '2030-06-30T00:00:00.000Z', dryRun: false, users: 31, apps: 58, usageRows: 412 } });
const usageQuery = z.object({
  from: day('from').meta({ description: 'First UTC day (included); absent: no bound.', example: '2030-06-01' }),
  to: day('to').meta({ description: 'Last UTC day (included); absent: no bound.', example: '2030-06-30' }),
});
const auditEntry = z
  .object({
    id: z.string(),
    at: timestamp,
    actor: actorSchema,
    action: z.string().meta({
      description: 'user.disable, user.enable, user.delete, purge, usage.export, app_limit.set, app_limit.clear, class.create or class.delete.',
      example: 'user.disable',
    }),
    targetUserId: z.string().meta({ description: 'The user acted on; empty when none.' }),
    targetEmail: z.string(),
    detail: z.string().meta({ description: 'What else there is to know, in words.', example: '2 apps deleted' }),
  })
  .meta({ id: 'AuditEntry' });
const auditPage = z.object({ entries: z.array(auditEntry), nextPageToken: z.string().optional() }).meta({ id: 'AuditPage' });
const appLimit = z
  .object({
    appId: z.string(),
    exempt: z.boolean(),
    perSecond: z.number().optional().meta({ description: 'Without exempt: requests a second.' }),
    burst: z.number().int().optional().meta({ description: 'Without exempt: requests at once.' }),
    setAt: timestamp,
    setBy: actorSchema,
  })
  .meta({
    id: 'AppLimit',
    description: "An app's own fair-share limit, in place of the default one.",
    example: { appId: 'app_Xq3V0d5yH2kq8Jr1mT9bWg', exempt: true, setAt: '2030-01-01T10:00:00.000Z', setBy: { kind: 'cli', id: 'ops@gateway-0', email: '' } },
  });
const limitBody = z
  .strictObject({
    exempt: z.literal(true, { error: 'exempt must be true (to lift an own limit, DELETE it)' }).optional(),
    perSecond: z
      .number({ error: 'perSecond must be a number' })
      .positive({ error: 'perSecond must be above 0' })
      .max(1_000_000, { error: 'perSecond must be at most 1000000' })
      .optional(),
    burst: z
      .number({ error: 'burst must be a number' })
      .int({ error: 'burst must be a whole number' })
      .min(1, { error: 'burst must be at least 1' })
      .max(10_000_000, { error: 'burst must be at most 10000000' })
      .optional(),
  })
  .refine((v) => (v.exempt ? v.perSecond === undefined && v.burst === undefined : v.perSecond !== undefined && v.burst !== undefined), {
    error: 'send {"exempt": true}, or {"perSecond": n, "burst": n} with both',
  })
  .meta({
    id: 'AppLimitSetting',
    description: '{"exempt": true}, or {"perSecond", "burst"}: the app\'s own rate and burst.',
    example: { perSecond: 500, burst: 1000 },
  });

const answer = (description: string, schema: z.ZodType) => ({ 200: { description, schema } });
const noSuchUser = { 404: 'No user with this id.' };
const notOnYourself = { 400: 'The request is malformed; or (cannot_act_on_self) an operator cannot disable or delete their own account.' };

const contracts = {
  listUsers: {
    query: z.object({ ...pageQuery, email: z.string().optional().meta({ description: 'Part of an email, any case.', example: 'example.org' }) }),
    responses: answer('Users, oldest first.', userPage),
  },
  getUser: { params: userPath, responses: answer('The user and their apps.', userWithApps), refusals: noSuchUser },
  setDisabled: { params: userPath, responses: answer('The user.', adminUser), refusals: { ...noSuchUser, ...notOnYourself } },
  deleteUser: {
    params: userPath,
    responses: answer('Deleted, with their apps, credentials, tokens, logs and OAuth state.', deleted),
    refusals: { ...noSuchUser, ...notOnYourself },
  },
  purge: {
    body: purgeBody,
    responses: answer('What went (or, with dryRun, would go).', purged),
    refusals: { 400: 'The request is malformed, or before is not a time (invalid_before).' },
  },
  usage: {
    query: usageQuery,
    responses: {
      200: {
        description: `Requests per day, user, app, auth style and route family, as CSV with a header row (${USAGE_COLUMNS.join(',')}); a cell that a spreadsheet would run as a formula starts with '.`,
        contentType: 'text/csv',
        schema: z.string().meta({
          example: `${USAGE_COLUMNS.join(',')}\r\n2030-06-01,66f1c0a95e2b4d7a9c3e1f21,learner@example.org,app_Xq3V0d5yH2kq8Jr1mT9bWg,Weather dashboard,api_key_header,data,120\r\n`,
        }),
        headers: { 'Content-Disposition': { description: 'attachment; filename="usage-<from>-<to>.csv" (start or end for an open bound).', required: true } },
      },
    },
  },
  audit: { query: z.object(pageQuery), responses: answer('Operator actions, newest first.', auditPage) },
  listLimits: { responses: answer("Every app's own limit an operator set.", z.object({ limits: z.array(appLimit) }).meta({ id: 'AppLimits' })) },
  setLimit: {
    params: appPath,
    body: limitBody,
    responses: answer('The limit, in force on every gateway within about a second.', appLimit),
    refusals: { 404: 'No app with this App ID.' },
  },
  clearLimit: {
    params: appPath,
    responses: answer(
      'Back to the default limit.',
      z.object({ appId: z.string(), status: z.literal('cleared') }).meta({ example: { appId: 'app_Xq3V0d5yH2kq8Jr1mT9bWg', status: 'cleared' } }),
    ),
    refusals: { 404: 'No app with this App ID, or it has no limit of its own.' },
  },
} satisfies Record<string, Contract>;

/** Deletions walk a user's (or a class's) apps through two services: more time than a portal call. */
const LONG_DEADLINE_MS = 30_000;

export function adminRoutes(deps: GatewayDeps): Route[] {
  // Made for each request, from the clients as they are then: building the rows calls for none.
  const operations = () => new AdminOperations(deps.clients.identity, deps.clients.oauth, deps.logger);
  const operator = (ctx: RouteContext) => sessionOperator(sessionOf(ctx));
  const admin = (spec: RouteSpec) => route({ auth: ['portal_session'], operatorOnly: true, noStore: true, rateLimited: false, ...spec });
  const pageSize = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  const setDisabled = (disabled: boolean) => async (ctx: RouteContext) =>
    json(await operations().setDisabled(operator(ctx), inputOf(ctx, contracts.setDisabled).params.id, disabled, ctx.call()));

  return [
    admin({
      methods: 'GET',
      path: '/api/admin/users',
      summary: 'Users, with app counts, request counts and last activity (page_size, pageToken, email).',
      contract: contracts.listUsers,
      handler: async (ctx) => {
        const { query } = inputOf(ctx, contracts.listUsers);
        return json(
          await operations().listUsers(operator(ctx), { pageSize: pageSize(query.page_size), pageToken: query.pageToken, email: query.email }, ctx.call()),
        );
      },
    }),
    admin({
      methods: 'GET',
      path: '/api/admin/users/:id',
      summary: 'One user and their apps (never a secret).',
      contract: contracts.getUser,
      handler: async (ctx) => json(await operations().getUser(operator(ctx), inputOf(ctx, contracts.getUser).params.id, ctx.call())),
    }),
    admin({
      methods: 'POST',
      path: '/api/admin/users/:id/disable',
      summary: 'Disable a user: their sessions and apps stop working until enabled.',
      contract: contracts.setDisabled,
      handler: setDisabled(true),
    }),
    admin({
      methods: 'POST',
      path: '/api/admin/users/:id/enable',
      summary: 'Enable a disabled user again.',
      contract: contracts.setDisabled,
      handler: setDisabled(false),
    }),
    admin({
      methods: 'DELETE',
      path: '/api/admin/users/:id',
      summary: 'Delete a user with their apps, credentials, tokens, logs and OAuth state.',
      contract: contracts.deleteUser,
      deadlineMs: LONG_DEADLINE_MS,
      handler: async (ctx) => json(await operations().deleteUser(operator(ctx), inputOf(ctx, contracts.deleteUser).params.id, ctx.call())),
    }),
    admin({
      methods: 'POST',
      path: '/api/admin/purge',
      summary: 'Delete every learner created before a moment, and the usage counted before it ({before, dryRun}).',
      body: 'json',
      contract: contracts.purge,
      deadlineMs: LONG_DEADLINE_MS,
      handler: async (ctx) => json(await operations().purge(operator(ctx), inputOf(ctx, contracts.purge).body, ctx.call())),
    }),
    admin({
      methods: 'GET',
      path: '/api/admin/usage.csv',
      summary: 'Usage as CSV: requests per day, user, app, auth style and route family (from, to).',
      contract: contracts.usage,
      deadlineMs: LONG_DEADLINE_MS,
      handler: async (ctx) => {
        const { fileName, csv } = await operations().usageExport(operator(ctx), inputOf(ctx, contracts.usage).query, ctx.call());
        return csvAttachment(fileName, csv);
      },
    }),
    admin({
      methods: 'GET',
      path: '/api/admin/audit',
      summary: 'The audit log of operator actions, newest first (page_size, pageToken).',
      contract: contracts.audit,
      handler: async (ctx) => {
        const { query } = inputOf(ctx, contracts.audit);
        return json(await operations().audit(operator(ctx), { pageSize: pageSize(query.page_size), pageToken: query.pageToken }, ctx.call()));
      },
    }),
    admin({
      methods: 'GET',
      path: '/api/admin/app-limits',
      summary: "Every app's own fair-share limit an operator set.",
      contract: contracts.listLimits,
      handler: async (ctx) => json(await operations().listAppLimits(ctx.call())),
    }),
    admin({
      methods: 'PUT',
      path: '/api/admin/apps/:appId/limit',
      summary: "Set an app's own fair-share limit: exempt, or another rate and burst.",
      body: 'json',
      contract: contracts.setLimit,
      handler: async (ctx) => {
        const { params, body } = inputOf(ctx, contracts.setLimit);
        const setting: LimitSetting = body.exempt ? { exempt: true } : { perSecond: body.perSecond!, burst: body.burst! };
        return json(await operations().setAppLimit(operator(ctx), params.appId, setting, ctx.call()));
      },
    }),
    admin({
      methods: 'DELETE',
      path: '/api/admin/apps/:appId/limit',
      summary: "Clear an app's own limit: the default applies again.",
      contract: contracts.clearLimit,
      handler: async (ctx) => json(await operations().clearAppLimit(operator(ctx), inputOf(ctx, contracts.clearLimit).params.appId, ctx.call())),
    }),
  ];
}
