import { z } from 'zod';
import { identity } from '@sandbox/contracts';
import { sessionOf } from '../../auth/scheme';
import type { GatewayDeps } from '../../deps';
import type { RouteContext } from '../../http/context';
import { inputOf, timestamp } from '../../http/contract';
import { json } from '../../http/reply';
import { routeOf, type Route, type RouteSpec } from '../../http/route';
import { classRoutes } from './class-routes';
import { exerciseRoutes } from './exercise-routes';

/** Every row here is for portal (http/route-family.ts). */
const route = routeOf('portal');

/*
 * The portal API: accounts and sessions (/api/auth/*, /api/me) and app
 * management (/api/apps*). Bodies are checked here for shape and JSON types
 * only; identity owns every rule about values (lengths, formats, scopes,
 * redirect URIs), so each rule lives in one place. docs/identity.md describes
 * every endpoint.
 */

// ---- JSON shapes -------------------------------------------------------------

type CredentialMetaJson = { createdAt: string; hint: string };

/** The one mapping from identity's App to the JSON the portal (and the docs) use. */
export function appJson(app: identity.App | undefined) {
  if (!app) throw new Error('identity answered without an app');
  const meta = (m: identity.CredentialMeta | undefined): CredentialMetaJson => ({ createdAt: m?.createdAt ?? '', hint: m?.hint ?? '' });
  return {
    id: app.id,
    name: app.name,
    description: app.description,
    appId: app.appId,
    redirectUris: app.redirectUris,
    scopes: app.scopes,
    status: app.status === identity.AppStatus.APP_STATUS_REVOKED ? 'revoked' : 'active',
    createdAt: app.createdAt,
    updatedAt: app.updatedAt,
    credentials: {
      appSecret: meta(app.credentials?.appSecret),
      apiKey: meta(app.credentials?.apiKey),
      bearerToken: meta(app.credentials?.bearerToken),
    },
  };
}

/** An app plus the credential values issued in this very response (and never again). */
function appWithIssued(app: identity.App | undefined, issued: identity.IssuedCredentials | undefined) {
  return {
    ...appJson(app),
    ...(issued?.appSecret !== undefined ? { appSecret: issued.appSecret } : {}),
    ...(issued?.apiKey !== undefined ? { apiKey: issued.apiKey } : {}),
    ...(issued?.bearerToken !== undefined ? { bearerToken: issued.bearerToken } : {}),
  };
}

function userJson(user: identity.User | undefined) {
  return { id: user?.id ?? '', email: user?.email ?? '', provider: user?.provider ?? '', createdAt: user?.createdAt ?? '' };
}

// ---- schemas: what the dispatcher validates and the OpenAPI document shows ----
// Bodies are checked here for shape and JSON types only; identity owns every
// rule about values (lengths, formats, scopes, redirect URIs), so each rule
// lives in one place.

const text = (field: string) => z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });
const optionalText = (field: string) => z.string({ error: `${field} must be a string` }).optional();
const textList = (field: string) =>
  z.array(z.string({ error: `each item of ${field} must be a string` }), {
    error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be an array of strings`),
  });
const flag = (field: string) => z.boolean({ error: `${field} must be true or false` }).optional();

const credentialsBody = z
  .strictObject({ email: text('email').meta({ example: 'learner@example.org' }), password: text('password').meta({ example: 'correct horse battery staple' }) })
  .meta({ id: 'Credentials' });
const createAppBody = z
  .strictObject({
    name: text('name').meta({ example: 'Weather dashboard' }),
    description: optionalText('description'),
    scopes: textList('scopes')
      .optional()
      .meta({ description: 'Pack scopes (GET /playground/data lists them); absent: every pack.', example: ['hr:read'] }),
    redirectUris: textList('redirectUris')
      .optional()
      .meta({ description: 'At most 10; https, or http on localhost.', example: ['https://client.example/callback'] }),
  })
  .meta({ id: 'NewApp' });
const rotateBody = z
  .strictObject({ secret: flag('secret'), apiKey: flag('apiKey'), bearer: flag('bearer') })
  .meta({ id: 'Rotation', description: 'The credentials to replace; none given: all three.' });
const redirectUrisBody = z
  .strictObject({ redirectUris: textList('redirectUris').meta({ example: ['https://client.example/callback'] }) })
  .meta({ id: 'RedirectUris' });
const scopesBody = z.strictObject({ scopes: textList('scopes').meta({ example: ['hr:read', 'stocks:read'] }) }).meta({ id: 'Scopes' });
const appPath = z.object({
  id: z.string().meta({ description: "The app's id (24 hex characters), from GET /api/apps.", example: '66f1c0a95e2b4d7a9c3e1f20' }),
});
const deleteQuery = z.object({
  mode: z
    .literal('revoke', { error: 'mode must be revoke, or absent to delete permanently' })
    .optional()
    .meta({ description: 'revoke: disable the app (its credentials stop working) instead of deleting it.' }),
});
/** The query of every paged list (request logs here, the operators' lists in admin-routes.ts). */
export const pageQuery = {
  page_size: z
    .string()
    .regex(/^[1-9]\d{0,5}$/, { error: 'page_size must be a positive integer' })
    .optional()
    .meta({ description: 'Entries per page (identity caps it).', example: '50' }),
  pageToken: z.string().optional().meta({ description: 'nextPageToken of the previous page.' }),
};
const logsQuery = z.object(pageQuery);

const sessionSchema = z
  .object({ token: z.string().meta({ description: 'The portal session token: send it as Authorization: Bearer.' }), expiresAt: timestamp })
  .meta({ id: 'Session' });
const userSchema = z
  .object({ id: z.string(), email: z.string(), provider: z.string().meta({ example: 'password' }), createdAt: timestamp })
  .meta({ id: 'User' });
/** GET /api/me: the user, and whether they are an operator (the portal shows its Classes screen to operators). */
const meSchema = userSchema
  .extend({
    operator: z
      .boolean()
      .meta({ description: "Named an operator (OPERATOR_EMAILS or OPERATOR_GROUPS): the portal shows them the operators' screens (classes)." }),
  })
  .meta({ id: 'Me' });
const credentialMeta = z.object({
  createdAt: timestamp,
  hint: z.string().meta({ description: 'The last characters, to tell credentials apart.', example: '9fQa' }),
});
/** The App JSON (appJson), as the portal and the operators' API document it. */
export const appSchema = z
  .object({
    id: z.string().meta({ example: '66f1c0a95e2b4d7a9c3e1f20' }),
    name: z.string(),
    description: z.string(),
    appId: z
      .string()
      .meta({ description: 'The App ID: client_id, Basic username, OAuth 1.0a consumer key, Digest username.', example: 'app_Xq3V0d5yH2kq8Jr1mT9bWg' }),
    redirectUris: z.array(z.string()),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'revoked']),
    createdAt: timestamp,
    updatedAt: timestamp,
    credentials: z.object({ appSecret: credentialMeta, apiKey: credentialMeta, bearerToken: credentialMeta }),
  })
  .meta({ id: 'App', description: "An app and its credentials' metadata; never a secret." });
const issuedApp = appSchema
  .extend({ appSecret: z.string().optional(), apiKey: z.string().optional(), bearerToken: z.string().optional() })
  .meta({ id: 'AppWithCredentials', description: 'An app with the credential values issued in this answer: shown once, never again.' });
const logEntry = z
  .object({
    time: timestamp,
    method: z.string(),
    path: z.string().meta({ description: 'The path only: never the query string.' }),
    status: z.number().int(),
    authStyle: z.string().meta({ example: 'api_key_header' }),
    latencyMs: z.number(),
    requestId: z.string(),
    failure: z.string().optional().meta({ description: 'On refusals: the rule that failed, as code: message.' }),
  })
  .meta({ id: 'RequestLogEntry' });

const throttled = { 429: 'Too many attempts from this address or for this account; Retry-After says when to try again.' };
const answer = (description: string, schema: z.ZodType, status = 200) => ({ [status]: { description, schema } });

// ---- routes --------------------------------------------------------------------

export function portalRoutes(deps: GatewayDeps): Route[] {
  const owner = (ctx: RouteContext) => sessionOf(ctx).user.id;
  /** Every portal answer may hold a session token or a credential: never stored by a cache. */
  const account = (spec: RouteSpec) => route({ noStore: true, ...spec });
  /** A route for the signed-in user. */
  const portal = (spec: RouteSpec) => account({ auth: ['portal_session'], ...spec });

  const register = {
    body: credentialsBody,
    responses: answer('The account exists; signed in.', sessionSchema, 201),
    refusals: {
      403: 'Sign-up is closed, or kept to some email domains, on this sandbox (SIGNUP): the message says what is allowed.',
      409: 'An account with this email exists.',
      ...throttled,
    },
  };
  const login = {
    body: credentialsBody,
    responses: answer('Signed in.', sessionSchema),
    refusals: {
      401: 'The email and password do not match an account.',
      403: 'Sign-in with a password is switched off on this sandbox (LOCAL_SIGN_IN).',
      ...throttled,
    },
  };
  const createApp = { body: createAppBody, responses: answer('The app, with its credentials: shown in this answer only.', issuedApp, 201) };
  const getApp = { params: appPath, responses: answer('The app.', appSchema) };
  const deleteApp = {
    params: appPath,
    query: deleteQuery,
    responses: answer('Deleted (or, with mode=revoke, the revoked app).', z.union([z.object({ id: z.string(), status: z.literal('deleted') }), appSchema])),
  };
  const newSecret = { params: appPath, responses: answer('The app with its new App Secret, shown once.', issuedApp) };
  const rotate = { params: appPath, body: rotateBody, responses: answer('The app with the new values, shown once.', issuedApp) };
  const setRedirectUris = { params: appPath, body: redirectUrisBody, responses: answer('The app.', appSchema) };
  const setScopes = { params: appPath, body: scopesBody, responses: answer('The app.', appSchema) };
  const logs = {
    params: appPath,
    query: logsQuery,
    responses: answer(
      'Newest first.',
      z.object({ entries: z.array(logEntry), total: z.number().int(), nextPageToken: z.string().optional() }).meta({ id: 'RequestLogPage' }),
    ),
  };

  return [
    account({
      methods: 'POST',
      path: '/api/auth/register',
      summary: 'Create a portal account; answers a session token.',
      body: 'json',
      contract: register,
      handler: async (ctx) => {
        const { session: created } = await deps.clients.identity.register(inputOf(ctx, register).body, ctx.call());
        return json({ token: created?.token, expiresAt: created?.expiresAt }, 201);
      },
    }),
    account({
      methods: 'POST',
      path: '/api/auth/login',
      summary: 'Sign in; answers a session token.',
      body: 'json',
      contract: login,
      handler: async (ctx) => {
        const { session: created } = await deps.clients.identity.login({ ...inputOf(ctx, login).body, clientAddress: ctx.clientAddress }, ctx.call());
        return json({ token: created?.token, expiresAt: created?.expiresAt });
      },
    }),
    portal({
      methods: 'POST',
      path: '/api/auth/logout',
      summary: 'Sign out: the session token stops working.',
      contract: { responses: answer('Signed out.', z.object({ status: z.literal('signed_out') }).meta({ example: { status: 'signed_out' } })) },
      handler: async (ctx) => {
        await deps.clients.identity.logout({ token: sessionOf(ctx).token }, ctx.call());
        return json({ status: 'signed_out' });
      },
    }),
    portal({
      methods: 'GET',
      path: '/api/me',
      summary: 'The signed-in user, and whether they are an operator.',
      contract: { responses: answer('The signed-in user.', meSchema) },
      handler: (ctx) => {
        // The credential is the session's (the route accepts nothing else); operator: what identity said of it on this request.
        const operator = ctx.credential?.kind === 'session' && ctx.credential.operator === true;
        return json({ ...userJson(sessionOf(ctx).user), operator });
      },
    }),
    portal({
      methods: 'POST',
      path: '/api/me/reset',
      summary: 'Delete every app of the signed-in user.',
      contract: { responses: answer('How many apps were deleted.', z.object({ deleted: z.number().int() }).meta({ example: { deleted: 3 } })) },
      handler: async (ctx) => json({ deleted: (await deps.clients.identity.resetOwner({ ownerId: owner(ctx) }, ctx.call())).deleted }),
    }),

    portal({
      methods: 'GET',
      path: '/api/apps',
      summary: 'Every app of the signed-in user.',
      contract: { responses: answer('Every app of yours.', z.object({ apps: z.array(appSchema) })) },
      handler: async (ctx) => json({ apps: (await deps.clients.identity.listApps({ ownerId: owner(ctx) }, ctx.call())).apps.map(appJson) }),
    }),
    portal({
      methods: 'POST',
      path: '/api/apps',
      summary: 'Create an app; its credentials are returned in this answer only.',
      body: 'json',
      contract: createApp,
      handler: async (ctx) => {
        const body = inputOf(ctx, createApp).body;
        const created = await deps.clients.identity.createApp(
          {
            ownerId: owner(ctx),
            name: body.name,
            description: body.description ?? '',
            scopes: body.scopes === undefined ? undefined : { scopes: body.scopes },
            redirectUris: body.redirectUris ?? [],
          },
          ctx.call(),
        );
        return json(appWithIssued(created.app, created.issued), 201, { Location: `/api/apps/${created.app?.id}` });
      },
    }),
    portal({
      methods: 'GET',
      path: '/api/apps/:id',
      summary: 'App details, credential metadata and scopes (never a secret).',
      contract: getApp,
      handler: async (ctx) => json(appJson((await deps.clients.identity.getApp({ ownerId: owner(ctx), id: inputOf(ctx, getApp).params.id }, ctx.call())).app)),
    }),
    portal({
      methods: 'DELETE',
      path: '/api/apps/:id',
      summary: 'Delete the app, its credentials and logs; with ?mode=revoke, disable it instead.',
      contract: deleteApp,
      handler: async (ctx) => {
        const { params, query } = inputOf(ctx, deleteApp);
        const result = await deps.clients.identity.deleteApp({ ownerId: owner(ctx), id: params.id, revoke: query.mode === 'revoke' }, ctx.call());
        return json(result.outcome === 'revoked' ? appJson(result.app) : { id: result.id, status: 'deleted' });
      },
    }),
    portal({
      methods: 'POST',
      path: '/api/apps/:id/secret',
      summary: 'Replace the App Secret; the new one is returned once.',
      contract: newSecret,
      handler: async (ctx) => {
        const result = await deps.clients.identity.regenerateSecret({ ownerId: owner(ctx), id: inputOf(ctx, newSecret).params.id }, ctx.call());
        return json(appWithIssued(result.app, result.issued));
      },
    }),
    portal({
      methods: 'POST',
      path: '/api/apps/:id/rotate',
      summary: 'Rotate the chosen credentials ({secret, apiKey, bearer}; none given: all); new values returned once.',
      body: 'json',
      bodyOptional: true,
      contract: rotate,
      handler: async (ctx) => {
        const { params, body } = inputOf(ctx, rotate);
        const result = await deps.clients.identity.rotateCredentials(
          { ownerId: owner(ctx), id: params.id, appSecret: body.secret, apiKey: body.apiKey, bearerToken: body.bearer },
          ctx.call(),
        );
        return json(appWithIssued(result.app, result.issued));
      },
    }),
    portal({
      methods: 'PUT',
      path: '/api/apps/:id/redirect-uris',
      summary: 'Replace the allowed OAuth redirect URIs (at most 10).',
      body: 'json',
      contract: setRedirectUris,
      handler: async (ctx) => {
        const { params, body } = inputOf(ctx, setRedirectUris);
        return json(
          appJson((await deps.clients.identity.setRedirectUris({ ownerId: owner(ctx), id: params.id, redirectUris: body.redirectUris }, ctx.call())).app),
        );
      },
    }),
    portal({
      methods: 'PUT',
      path: '/api/apps/:id/scopes',
      summary: 'Replace the pack scopes the app holds.',
      body: 'json',
      contract: setScopes,
      handler: async (ctx) => {
        const { params, body } = inputOf(ctx, setScopes);
        return json(appJson((await deps.clients.identity.setScopes({ ownerId: owner(ctx), id: params.id, scopes: body.scopes }, ctx.call())).app));
      },
    }),
    portal({
      methods: 'GET',
      path: '/api/apps/:id/logs',
      summary: "The app's request log, newest first (page_size, pageToken).",
      contract: logs,
      handler: async (ctx) => {
        const { params, query } = inputOf(ctx, logs);
        const page = await deps.clients.identity.listRequestLogs(
          { ownerId: owner(ctx), id: params.id, pageSize: query.page_size === undefined ? 0 : Number(query.page_size), pageToken: query.pageToken ?? '' },
          ctx.call(),
        );
        return json({
          // failure only on refusals, naming the rule that failed.
          entries: page.entries.map(({ app: _app, appId: _appId, facts: _facts, failure, ...entry }) => (failure ? { ...entry, failure } : entry)),
          total: page.total,
          ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
        });
      },
    }),
    ...exerciseRoutes(deps, portal),
    ...classRoutes(deps, portal),
  ];
}
