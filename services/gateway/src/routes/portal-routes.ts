import { z } from 'zod';
import { identity } from '@sandbox/contracts';
import { sessionOf } from '../auth/scheme';
import type { GatewayDeps } from '../deps';
import type { RouteContext } from '../http/context';
import { badRequest } from '../http/errors';
import { json } from '../http/reply';
import { route, type Route, type RouteSpec } from '../http/route';

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

// ---- request bodies ----------------------------------------------------------

const text = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });
const optionalText = (field: string) => z.string({ error: `${field} must be a string` }).optional();
const textList = (field: string) =>
  z.array(z.string({ error: `each item of ${field} must be a string` }), {
    error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be an array of strings`),
  });
const flag = (field: string) => z.boolean({ error: `${field} must be true or false` }).optional();

const credentialsBody = z.strictObject({ email: text('email'), password: text('password') });
const createAppBody = z.strictObject({
  name: text('name'),
  description: optionalText('description'),
  scopes: textList('scopes').optional(),
  redirectUris: textList('redirectUris').optional(),
});
const rotateBody = z.strictObject({ secret: flag('secret'), apiKey: flag('apiKey'), bearer: flag('bearer') });
const redirectUrisBody = z.strictObject({ redirectUris: textList('redirectUris') });
const scopesBody = z.strictObject({ scopes: textList('scopes') });

/**
 * The route's JSON object body (read by the dispatcher, body mode json)
 * checked against `schema`; the first problem becomes a 400 naming the field.
 */
function parseBody<S extends z.ZodObject>(ctx: RouteContext, schema: S): z.output<S> {
  const result = schema.safeParse(ctx.body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}; this endpoint accepts ${Object.keys(schema.shape).join(', ')}.`
      : issue.message;
  throw badRequest('invalid_body', message.endsWith('.') ? message : `${message}.`);
}

// ---- routes --------------------------------------------------------------------

export function portalRoutes(deps: GatewayDeps): Route[] {
  const { identity: client } = deps.clients;
  const owner = (ctx: RouteContext) => sessionOf(ctx).user.id;
  const appId = (ctx: RouteContext) => ctx.params.id;
  /** Every portal answer may hold a session token or a credential: never stored by a cache. */
  const account = (spec: RouteSpec) => route({ noStore: true, ...spec });
  /** A route for the signed-in user. */
  const portal = (spec: RouteSpec) => account({ auth: ['portal_session'], ...spec });

  return [
    account({
      methods: 'POST',
      path: '/api/auth/register',
      summary: 'Create a portal account; answers a session token.',
      body: 'json',
      handler: async (ctx) => {
        const { session: created } = await client.register(parseBody(ctx, credentialsBody), ctx.call());
        return json({ token: created?.token, expiresAt: created?.expiresAt }, 201);
      },
    }),
    account({
      methods: 'POST',
      path: '/api/auth/login',
      summary: 'Sign in; answers a session token.',
      body: 'json',
      handler: async (ctx) => {
        const body = parseBody(ctx, credentialsBody);
        const { session: created } = await client.login({ ...body, clientAddress: ctx.clientAddress }, ctx.call());
        return json({ token: created?.token, expiresAt: created?.expiresAt });
      },
    }),
    portal({
      methods: 'POST',
      path: '/api/auth/logout',
      summary: 'Sign out: the session token stops working.',
      handler: async (ctx) => {
        await client.logout({ token: sessionOf(ctx).token }, ctx.call());
        return json({ status: 'signed_out' });
      },
    }),
    portal({ methods: 'GET', path: '/api/me', summary: 'The signed-in user.', handler: (ctx) => json(userJson(sessionOf(ctx).user)) }),
    portal({
      methods: 'POST',
      path: '/api/me/reset',
      summary: 'Delete every app of the signed-in user.',
      handler: async (ctx) => json({ deleted: (await client.resetOwner({ ownerId: owner(ctx) }, ctx.call())).deleted }),
    }),

    portal({
      methods: 'GET',
      path: '/api/apps',
      summary: 'Every app of the signed-in user.',
      handler: async (ctx) => json({ apps: (await client.listApps({ ownerId: owner(ctx) }, ctx.call())).apps.map(appJson) }),
    }),
    portal({
      methods: 'POST',
      path: '/api/apps',
      summary: 'Create an app; its credentials are returned in this answer only.',
      body: 'json',
      handler: async (ctx) => {
        const body = parseBody(ctx, createAppBody);
        const created = await client.createApp(
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
      handler: async (ctx) => json(appJson((await client.getApp({ ownerId: owner(ctx), id: appId(ctx) }, ctx.call())).app)),
    }),
    portal({
      methods: 'DELETE',
      path: '/api/apps/:id',
      summary: 'Delete the app, its credentials and logs; with ?mode=revoke, disable it instead.',
      handler: async (ctx) => {
        const mode = ctx.singleParam('mode');
        if (mode !== undefined && mode !== 'revoke') throw badRequest('invalid_parameter', 'mode must be revoke, or absent to delete permanently.');
        const result = await client.deleteApp({ ownerId: owner(ctx), id: appId(ctx), revoke: mode === 'revoke' }, ctx.call());
        return json(result.outcome === 'revoked' ? appJson(result.app) : { id: result.id, status: 'deleted' });
      },
    }),
    portal({
      methods: 'POST',
      path: '/api/apps/:id/secret',
      summary: 'Replace the App Secret; the new one is returned once.',
      handler: async (ctx) => {
        const result = await client.regenerateSecret({ ownerId: owner(ctx), id: appId(ctx) }, ctx.call());
        return json(appWithIssued(result.app, result.issued));
      },
    }),
    portal({
      methods: 'POST',
      path: '/api/apps/:id/rotate',
      summary: 'Rotate the chosen credentials ({secret, apiKey, bearer}; none given: all); new values returned once.',
      body: 'json',
      bodyOptional: true,
      handler: async (ctx) => {
        const body = parseBody(ctx, rotateBody);
        const result = await client.rotateCredentials(
          { ownerId: owner(ctx), id: appId(ctx), appSecret: body.secret, apiKey: body.apiKey, bearerToken: body.bearer },
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
      handler: async (ctx) => {
        const body = parseBody(ctx, redirectUrisBody);
        return json(appJson((await client.setRedirectUris({ ownerId: owner(ctx), id: appId(ctx), redirectUris: body.redirectUris }, ctx.call())).app));
      },
    }),
    portal({
      methods: 'PUT',
      path: '/api/apps/:id/scopes',
      summary: 'Replace the pack scopes the app holds.',
      body: 'json',
      handler: async (ctx) => {
        const body = parseBody(ctx, scopesBody);
        return json(appJson((await client.setScopes({ ownerId: owner(ctx), id: appId(ctx), scopes: body.scopes }, ctx.call())).app));
      },
    }),
    portal({
      methods: 'GET',
      path: '/api/apps/:id/logs',
      summary: "The app's request log, newest first (page_size, pageToken).",
      handler: async (ctx) => {
        const pageSize = ctx.singleParam('page_size');
        if (pageSize !== undefined && !/^[1-9]\d{0,5}$/.test(pageSize)) throw badRequest('invalid_parameter', 'page_size must be a positive integer.');
        const page = await client.listRequestLogs(
          { ownerId: owner(ctx), id: appId(ctx), pageSize: pageSize === undefined ? 0 : Number(pageSize), pageToken: ctx.singleParam('pageToken') ?? '' },
          ctx.call(),
        );
        return json({
          // failure only on refusals, naming the rule that failed.
          entries: page.entries.map(({ app: _app, appId: _appId, failure, ...entry }) => (failure ? { ...entry, failure } : entry)),
          total: page.total,
          ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
        });
      },
    }),
  ];
}
