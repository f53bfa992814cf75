import type { Request, Response } from 'express';
import { z } from 'zod';
import { identity } from '@sandbox/contracts';
import type { GatewayDeps } from '../deps';
import { badRequest } from '../http/error-response';
import { noStore, requireSession, sessionUser } from '../http/portal-session';
import { singleQueryParam } from '../http/query';
import { route, withAuth, type RouteDef } from '../http/route-table';

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
 * A JSON object body checked against `schema`; the first problem becomes a 400
 * naming the field. `optional` accepts a request without a body as {}.
 */
function parseBody<S extends z.ZodType>(req: Request, schema: S, options: { optional?: boolean } = {}): z.output<S> {
  let body: unknown = req.body;
  if (body === undefined && options.optional && !req.get('content-type')) body = {};
  if (body === undefined) {
    throw badRequest('invalid_body', 'Send a JSON object body with Content-Type: application/json.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('invalid_body', 'The request body must be a JSON object.');
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}; this endpoint accepts ${Object.keys((schema as unknown as z.ZodObject).shape).join(', ')}.`
      : issue.message;
  throw badRequest('invalid_body', message.endsWith('.') ? message : `${message}.`);
}

// ---- routes --------------------------------------------------------------------

export function portalRoutes(deps: GatewayDeps): RouteDef[] {
  const { identity: client } = deps.clients;
  const session = requireSession(deps);
  const call = (res: Response) => ({ requestId: res.locals.requestId as string });
  const owner = (res: Response) => sessionUser(res).id;
  const appId = (req: Request) => String(req.params.id);
  const portal = (def: RouteDef) => withAuth(def, 'portal session (Authorization: Bearer <session token>)');

  return [
    route('POST', '/api/auth/register', 'Create a portal account; answers a session token.', noStore, async (req, res) => {
      const body = parseBody(req, credentialsBody);
      const { session: created } = await client.register(body, call(res));
      res.status(201).json({ token: created?.token, expiresAt: created?.expiresAt });
    }),
    route('POST', '/api/auth/login', 'Sign in; answers a session token.', noStore, async (req, res) => {
      const body = parseBody(req, credentialsBody);
      const { session: created } = await client.login(body, call(res));
      res.json({ token: created?.token, expiresAt: created?.expiresAt });
    }),
    portal(
      route('POST', '/api/auth/logout', 'Sign out: the session token stops working.', noStore, session, async (_req, res) => {
        await client.logout({ token: res.locals.sessionToken as string }, call(res));
        res.json({ status: 'signed_out' });
      }),
    ),
    portal(
      route('GET', '/api/me', 'The signed-in user.', noStore, session, (_req, res) => {
        res.json(userJson(sessionUser(res)));
      }),
    ),
    portal(
      route('POST', '/api/me/reset', 'Delete every app of the signed-in user.', noStore, session, async (_req, res) => {
        const { deleted } = await client.resetOwner({ ownerId: owner(res) }, call(res));
        res.json({ deleted });
      }),
    ),

    portal(
      route('GET', '/api/apps', 'Every app of the signed-in user.', noStore, session, async (_req, res) => {
        const { apps } = await client.listApps({ ownerId: owner(res) }, call(res));
        res.json({ apps: apps.map(appJson) });
      }),
    ),
    portal(
      route('POST', '/api/apps', 'Create an app; its credentials are returned in this answer only.', noStore, session, async (req, res) => {
        const body = parseBody(req, createAppBody);
        const created = await client.createApp(
          {
            ownerId: owner(res),
            name: body.name,
            description: body.description ?? '',
            scopes: body.scopes === undefined ? undefined : { scopes: body.scopes },
            redirectUris: body.redirectUris ?? [],
          },
          call(res),
        );
        res.status(201).location(`/api/apps/${created.app?.id}`).json(appWithIssued(created.app, created.issued));
      }),
    ),
    portal(
      route('GET', '/api/apps/:id', 'App details, credential metadata and scopes (never a secret).', noStore, session, async (req, res) => {
        const { app } = await client.getApp({ ownerId: owner(res), id: appId(req) }, call(res));
        res.json(appJson(app));
      }),
    ),
    portal(
      route(
        'DELETE',
        '/api/apps/:id',
        'Delete the app, its credentials and logs; with ?mode=revoke, disable it instead.',
        noStore,
        session,
        async (req, res) => {
          const mode = singleQueryParam(req, 'mode');
          if (mode !== undefined && mode !== 'revoke') throw badRequest('invalid_parameter', 'mode must be revoke, or absent to delete permanently.');
          const result = await client.deleteApp({ ownerId: owner(res), id: appId(req), revoke: mode === 'revoke' }, call(res));
          res.json(result.outcome === 'revoked' ? appJson(result.app) : { id: result.id, status: 'deleted' });
        },
      ),
    ),
    portal(
      route('POST', '/api/apps/:id/secret', 'Replace the App Secret; the new one is returned once.', noStore, session, async (req, res) => {
        const result = await client.regenerateSecret({ ownerId: owner(res), id: appId(req) }, call(res));
        res.json(appWithIssued(result.app, result.issued));
      }),
    ),
    portal(
      route(
        'POST',
        '/api/apps/:id/rotate',
        'Rotate the chosen credentials ({secret, apiKey, bearer}; none given: all); new values returned once.',
        noStore,
        session,
        async (req, res) => {
          const body = parseBody(req, rotateBody, { optional: true });
          const result = await client.rotateCredentials(
            { ownerId: owner(res), id: appId(req), appSecret: body.secret, apiKey: body.apiKey, bearerToken: body.bearer },
            call(res),
          );
          res.json(appWithIssued(result.app, result.issued));
        },
      ),
    ),
    portal(
      route('PUT', '/api/apps/:id/redirect-uris', 'Replace the allowed OAuth redirect URIs (at most 10).', noStore, session, async (req, res) => {
        const body = parseBody(req, redirectUrisBody);
        const { app } = await client.setRedirectUris({ ownerId: owner(res), id: appId(req), redirectUris: body.redirectUris }, call(res));
        res.json(appJson(app));
      }),
    ),
    portal(
      route('PUT', '/api/apps/:id/scopes', 'Replace the pack scopes the app holds.', noStore, session, async (req, res) => {
        const body = parseBody(req, scopesBody);
        const { app } = await client.setScopes({ ownerId: owner(res), id: appId(req), scopes: body.scopes }, call(res));
        res.json(appJson(app));
      }),
    ),
    portal(
      route('GET', '/api/apps/:id/logs', "The app's request log, newest first (page_size, pageToken).", noStore, session, async (req, res) => {
        const pageSize = singleQueryParam(req, 'page_size');
        if (pageSize !== undefined && !/^[1-9]\d{0,5}$/.test(pageSize)) throw badRequest('invalid_parameter', 'page_size must be a positive integer.');
        const page = await client.listRequestLogs(
          { ownerId: owner(res), id: appId(req), pageSize: pageSize === undefined ? 0 : Number(pageSize), pageToken: singleQueryParam(req, 'pageToken') ?? '' },
          call(res),
        );
        res.json({
          entries: page.entries.map(({ app: _app, ...entry }) => entry),
          total: page.total,
          ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
        });
      }),
    ),
  ];
}
