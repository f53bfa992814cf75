import type { oauth } from '@sandbox/contracts';
import { AppError, GrpcStatus } from '@sandbox/runtime';
import { authorizationValue } from '../auth/scheme';
import { decodeBasic } from '../auth/schemes/basic';
import type { GatewayDeps } from '../deps';
import type { FormBody } from '../http/body';
import type { RouteContext } from '../http/context';
import { empty, json } from '../http/reply';
import { route, type Route, type RouteSpec } from '../http/route';

/** The OAuth 2.0 endpoints' paths: the metadata document and the routes are built from these. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  introspect: '/oauth/introspect',
  revoke: '/oauth/revoke',
  metadata: '/.well-known/oauth-authorization-server',
  jwks: '/.well-known/jwks.json',
} as const;

const invalidRequest = (message: string) => new AppError(GrpcStatus.INVALID_ARGUMENT, 'invalid_request', message);
const BASIC_CHALLENGE = 'Basic realm="training-sandbox", charset="UTF-8"';

/** The parameters of a form body, one value each, and the names that were sent more than once (RFC 6749 3.1, 3.2: invalid_request). */
function formOf(ctx: RouteContext): { get(name: string): string | undefined; has(name: string): boolean; repeated: string[] } {
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [name, value] of (ctx.body as FormBody).pairs) {
    if (values.has(name)) repeated.add(name);
    else values.set(name, value);
  }
  return { get: (name) => values.get(name), has: (name) => values.has(name), repeated: [...repeated] };
}

/** RFC 6749 2.3.1: in the Basic header the client id and secret are form-urlencoded first (oauth4webapi sends `app%5F…`). */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new AppError(GrpcStatus.UNAUTHENTICATED, 'invalid_client', 'The Basic credential is not form-urlencoded client_id:client_secret.').withChallenge(BASIC_CHALLENGE);
  }
}

/**
 * How the client authenticated: the Basic header or the body's client_id and
 * client_secret, never both (RFC 6749 2.3.1: one method per request).
 */
function clientAuthentication(ctx: RouteContext, form: ReturnType<typeof formOf>): oauth.ClientAuthentication {
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  const basic = authorizationValue(ctx, 'basic');
  if (basic !== undefined) {
    const decoded = decodeBasic(basic);
    if (!decoded) {
      throw new AppError(GrpcStatus.UNAUTHENTICATED, 'invalid_client', 'The Basic credential is not base64 of "client_id:client_secret".').withChallenge(BASIC_CHALLENGE);
    }
    const clientId = formDecode(decoded.user);
    if (bodySecret !== undefined) throw invalidRequest('The client authenticated twice: send the client secret in the Basic header or in the body, not both.');
    if (bodyId !== undefined && bodyId !== clientId) throw invalidRequest("The body's client_id differs from the Basic header's.");
    return { clientId, clientSecret: formDecode(decoded.password), method: 'basic' };
  }
  if (bodySecret !== undefined) return { clientId: bodyId ?? '', clientSecret: bodySecret, method: 'body' };
  return { clientId: bodyId ?? '', clientSecret: '', method: '' };
}

/** Token answers hold credentials: never stored by a cache (RFC 6749 5.1). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** RFC 6749 5.1 / RFC 7662 2.2 members, by their protocol names; empty ones are left out rather than sent as "" or 0. */
function members(fields: Record<string, string | number | boolean | undefined>): Record<string, string | number | boolean> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== '' && v !== 0 && v !== undefined)) as Record<string, string | number | boolean>;
}

/** RFC 6749 5.1. */
const tokenJson = (t: oauth.TokenResponse) =>
  members({ access_token: t.accessToken, token_type: t.tokenType, expires_in: t.expiresIn, refresh_token: t.refreshToken, scope: t.scope });

/** RFC 7662 2.2: an inactive token is {active: false} and nothing else. */
const introspectionJson = (i: oauth.IntrospectResponse) =>
  i.active
    ? members({ active: true, scope: i.scope, client_id: i.clientId, token_type: i.tokenType, exp: i.exp, iat: i.iat, sub: i.sub, aud: i.aud, iss: i.iss, jti: i.jti })
    : { active: false };

export function oauthRoutes(deps: GatewayDeps): Route[] {
  const { oauth: client } = deps.clients;
  /** An OAuth endpoint: RFC 6749 errors, never cached. */
  const endpoint = (spec: RouteSpec) => route({ errors: 'oauth', noStore: true, ...spec });
  /** The client a form names, for the app's request log (the oauth service decides whether it authenticated). */
  const logClient = (ctx: RouteContext, clientId: string) => {
    if (clientId) ctx.logAs = { appId: clientId, style: 'oauth2' };
  };

  /** The form of an introspection or revocation request: one token, its hint, and how the client authenticated. */
  const tokenRequest = (ctx: RouteContext, what: 'introspect' | 'revoke') => {
    const form = formOf(ctx);
    const clientAuth = clientAuthentication(ctx, form);
    logClient(ctx, clientAuth.clientId);
    if (form.repeated.length) throw invalidRequest(`${form.repeated.join(', ')} must be given once.`);
    const token = form.get('token');
    if (!token) throw invalidRequest(`Send the token to ${what} as the form field token.`);
    return { token, tokenTypeHint: form.get('token_type_hint') ?? '', client: clientAuth };
  };

  return [
    endpoint({
      methods: 'GET',
      path: OAUTH_PATHS.authorize,
      summary: 'OAuth 2.0 authorization code flow (PKCE S256), approved automatically: redirects to redirect_uri with code or error.',
      handler: async (ctx) => {
        const names = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'];
        const query = ctx.query;
        const value = (name: string) => query.get(name) ?? '';
        logClient(ctx, value('client_id'));
        const { location } = await client.authorize(
          {
            responseType: value('response_type'),
            clientId: value('client_id'),
            redirectUri: value('redirect_uri'),
            scope: value('scope'),
            state: value('state'),
            codeChallenge: value('code_challenge'),
            codeChallengeMethod: value('code_challenge_method'),
            issuer: ctx.baseUrl,
            present: names.filter((name) => query.has(name)),
            repeated: names.filter((name) => query.getAll(name).length > 1),
          },
          ctx.call(),
        );
        return empty(302, { Location: location });
      },
    }),
    endpoint({
      methods: 'POST',
      path: OAUTH_PATHS.token,
      summary: 'OAuth 2.0 token endpoint: client_credentials (default), authorization_code (with PKCE), refresh_token.',
      body: 'form',
      handler: async (ctx) => {
        const form = formOf(ctx);
        const clientAuth = clientAuthentication(ctx, form);
        logClient(ctx, clientAuth.clientId);
        const token = await client.token(
          {
            grantType: form.get('grant_type') ?? '',
            client: clientAuth,
            scope: form.get('scope') ?? '',
            code: form.get('code') ?? '',
            redirectUri: form.get('redirect_uri') ?? '',
            codeVerifier: form.get('code_verifier') ?? '',
            refreshToken: form.get('refresh_token') ?? '',
            issuer: ctx.baseUrl,
            repeated: form.repeated,
            hasScope: form.has('scope'),
            hasCodeVerifier: form.has('code_verifier'),
          },
          ctx.call(),
        );
        return json(tokenJson(token), 200, { ...NO_STORE });
      },
    }),
    endpoint({
      methods: 'POST',
      path: OAUTH_PATHS.introspect,
      summary: 'OAuth 2.0 token introspection (RFC 7662): form field token; client authentication optional.',
      body: 'form',
      handler: async (ctx) => {
        const answer = await client.introspect(tokenRequest(ctx, 'introspect'), ctx.call());
        return json(introspectionJson(answer), 200, { ...NO_STORE });
      },
    }),
    endpoint({
      methods: 'POST',
      path: OAUTH_PATHS.revoke,
      summary: 'OAuth 2.0 token revocation (RFC 7009): form field token; client authentication required.',
      body: 'form',
      handler: async (ctx) => {
        await client.revoke(tokenRequest(ctx, 'revoke'), ctx.call());
        return empty(200, { 'Content-Length': 0 });
      },
    }),
    route({
      methods: 'GET',
      path: OAUTH_PATHS.metadata,
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414).',
      handler: (ctx) => {
        const base = ctx.baseUrl;
        return json({
          issuer: base,
          authorization_endpoint: base + OAUTH_PATHS.authorize,
          token_endpoint: base + OAUTH_PATHS.token,
          introspection_endpoint: base + OAUTH_PATHS.introspect,
          revocation_endpoint: base + OAUTH_PATHS.revoke,
          jwks_uri: base + OAUTH_PATHS.jwks,
          response_types_supported: ['code'],
          response_modes_supported: ['query'],
          grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
          revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          authorization_response_iss_parameter_supported: true,
          service_documentation: `${base}/playground`,
        });
      },
    }),
    route({
      methods: 'GET',
      path: OAUTH_PATHS.jwks,
      summary: 'The public key that signs access tokens and RS256 playground JWTs, as a JWK Set.',
      handler: async (ctx) => {
        const { jwkJson } = await client.getJwtPublicKey({}, ctx.call());
        return json({ keys: [JSON.parse(jwkJson)] }, 200, { 'Cache-Control': 'public, max-age=300' });
      },
    }),
  ];
}
