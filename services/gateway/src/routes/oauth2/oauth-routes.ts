import { z } from 'zod';
import { challenges, type oauth } from '@sandbox/contracts';
import { AppError, GrpcStatus, quoteInput } from '@sandbox/runtime';
import { authorizationValue } from '../../auth/scheme';
import { decodeBasic } from '../../auth/schemes/basic';
import type { GatewayDeps } from '../../deps';
import type { FormBody } from '../../http/body';
import type { RouteContext } from '../../http/context';
import { inputOf, type Contract } from '../../http/contract';
import { empty, json } from '../../http/reply';
import { routeOf, type Route, type RouteSpec } from '../../http/route';

/** Every row here is for oauth2 (http/route-family.ts). */
const route = routeOf('oauth2');

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
const BASIC_CHALLENGE = challenges.CHALLENGE.basic;

/** RFC 6749 2.3.1: in the Basic header the client id and secret are form-urlencoded first (oauth4webapi sends `app%5F…`). */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new AppError(GrpcStatus.UNAUTHENTICATED, 'invalid_client', 'The Basic credential is not form-urlencoded client_id:client_secret.').withChallenge(
      BASIC_CHALLENGE,
    );
  }
}

/** The body fields of client_secret_post (RFC 6749 2.3.1), as the contract validated them. */
interface ClientFields {
  client_id?: string;
  client_secret?: string;
}

/**
 * How the client authenticated: the Basic header or the body's client_id and
 * client_secret, never both (RFC 6749 2.3.1: one method per request). Whether
 * the credentials are right is the oauth service's to say.
 */
function clientAuthentication(ctx: RouteContext, body: ClientFields): oauth.ClientAuthentication {
  const { client_id: bodyId, client_secret: bodySecret } = body;
  const basic = authorizationValue(ctx, 'basic');
  if (basic !== undefined) {
    const decoded = decodeBasic(basic);
    if (!decoded) {
      throw new AppError(GrpcStatus.UNAUTHENTICATED, 'invalid_client', 'The Basic credential is not base64 of "client_id:client_secret".').withChallenge(
        BASIC_CHALLENGE,
      );
    }
    const clientId = formDecode(decoded.user);
    if (bodySecret !== undefined) throw invalidRequest('The client authenticated twice: send the client secret in the Basic header or in the body, not both.');
    if (bodyId !== undefined && bodyId !== clientId) throw invalidRequest("The body's client_id differs from the Basic header's.");
    return { clientId, clientSecret: formDecode(decoded.password), method: 'basic' };
  }
  if (bodySecret !== undefined) return { clientId: bodyId ?? '', clientSecret: bodySecret, method: 'body' };
  return { clientId: bodyId ?? '', clientSecret: '', method: '' };
}

/**
 * The client a token, introspection or revocation request names (the Basic
 * user, or the form's client_id), for the app's request log: set before the
 * contract checks the form, so refusals are logged too. Whether the client
 * authenticated is the oauth service's to say.
 */
function logClient(ctx: RouteContext): void {
  const basic = authorizationValue(ctx, 'basic');
  const decoded = basic === undefined ? undefined : decodeBasic(basic);
  let clientId: string | undefined;
  if (decoded) {
    try {
      clientId = formDecode(decoded.user);
    } catch {
      return;
    }
  } else clientId = (ctx.body as FormBody).pairs.find(([name, value]) => name === 'client_id' && value !== '')?.[1];
  if (clientId) ctx.logAs = { appId: clientId, style: 'oauth2' };
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

/**
 * RFC 7662 2.2: an inactive token is {active: false} and nothing else. A live
 * token always carries `scope`, "" when its app holds none: the member is
 * OPTIONAL, but learners' clients read it, and an empty string parses where a
 * missing key throws.
 */
const introspectionJson = (i: oauth.IntrospectResponse) =>
  i.active
    ? {
        active: true,
        scope: i.scope,
        ...members({ client_id: i.clientId, token_type: i.tokenType, exp: i.exp, iat: i.iat, sub: i.sub, aud: i.aud, iss: i.iss, jti: i.jti }),
      }
    : { active: false };

// ---- schemas: what the dispatcher validates and the OpenAPI document shows ----
// The gateway owns the request's syntax: one value per parameter (a form is
// checked as single values, contract.ts), the grant types and the parameters
// each one requires, the token of an introspection or revocation. The oauth
// service owns everything that needs its state or the app's: client
// authentication, codes, PKCE, redirect URIs, scopes, refresh tokens. Their
// rules are described here, and refused there.

const APP_ID = 'app_Xq3V0d5yH2kq8Jr1mT9bWg';
const REDIRECT_URI = 'https://client.example/callback';
const ACCESS_TOKEN = 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6Ii4uLiJ9.eyJpc3MiOiIuLi4ifQ.c2lnbmF0dXJl';
const REFRESH_TOKEN = 'rt_3Jq9sW8bHcM1xV0eK7nT2pL5yR4uA6dF9gZ2hQ8wE1t';
const required = (field: string, what: string) => z.string({ error: `${field} is required: ${what}` });

const clientFields = {
  client_id: z
    .string()
    .optional()
    .meta({ description: 'The App ID. With client_secret: client_secret_post. With the Basic header: the same App ID, or left out.', example: APP_ID }),
  client_secret: z
    .string()
    .optional()
    .meta({ description: 'The App Secret (client_secret_post). Never together with the Basic header: one method per request.', example: 'as_5Yq0...' }),
};
const scope = z
  .string()
  .optional()
  .meta({ description: "Space-separated pack scopes (RFC 6749 3.3), some of the app's; absent: every scope the app holds.", example: 'hr:read stocks:read' });

const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token'] as const;

const clientCredentialsGrant = z
  .object({
    grant_type: z.literal('client_credentials').optional().meta({ description: 'client_credentials; the default when absent.' }),
    scope,
    ...clientFields,
  })
  .meta({ description: 'grant_type client_credentials (RFC 6749 4.4): a token for the app itself. No refresh token.' });
const authorizationCodeGrant = z
  .object({
    grant_type: z.literal('authorization_code'),
    code: required('code', 'send the code that came back to your redirect URI').meta({
      description: 'The code from the authorization redirect: single use, valid for 60 s.',
      example: 'Q2Vv3k1d8JmXzq0bR7tYw5nP4sL6hG9fA2cE1uK3oI8',
    }),
    redirect_uri: z
      .string()
      .optional()
      .meta({ description: 'Exactly as sent to the authorization endpoint; required when it was sent there (RFC 6749 4.1.3).', example: REDIRECT_URI }),
    code_verifier: z.string().optional().meta({
      description:
        'PKCE (RFC 7636 4.5): 43 to 128 of A-Z a-z 0-9 - . _ ~. Required when the authorization request had a code_challenge, refused when it had none (RFC 9700 2.1.1).',
      example: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    }),
    scope: scope.meta({ description: "Optional: narrows the code's scope; absent: the code's scope." }),
    ...clientFields,
  })
  .meta({ description: 'grant_type authorization_code (RFC 6749 4.1.3): redeem a code (PKCE per RFC 7636). The answer has a refresh token.' });
const refreshTokenGrant = z
  .object({
    grant_type: z.literal('refresh_token'),
    refresh_token: required('refresh_token', 'send the refresh token from your last token response').meta({
      description: 'The last refresh token issued: each works once and rotates; presenting a used one revokes its whole grant.',
      example: REFRESH_TOKEN,
    }),
    scope: scope.meta({ description: 'Optional: narrows what was granted, never widens it (RFC 6749 6); absent: the original grant.' }),
    ...clientFields,
  })
  .meta({ description: 'grant_type refresh_token (RFC 6749 6): a new access token and a new refresh token of the same grant.' });

/**
 * RFC 6749 4.1.3, 4.4.2 and 6 as one schema: which parameters a request
 * needs depends on its grant_type, so the body is one of three shapes. The
 * branches have no component names of their own, so the document shows a
 * plain oneOf (a discriminator object would need grant_type in every branch,
 * and client_credentials may leave it out).
 */
const tokenBody = z
  .discriminatedUnion('grant_type', [clientCredentialsGrant, authorizationCodeGrant, refreshTokenGrant], {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? `grant_type ${quoteInput((issue.input as { grant_type?: unknown }).grant_type, { quotes: 'single' })} is not supported here: use client_credentials (the default), authorization_code or refresh_token`
        : undefined,
  })
  .meta({
    id: 'TokenRequest',
    description: 'Unrecognised parameters are ignored (RFC 6749 3.2); each parameter at most once; an empty one counts as absent.',
  });

const tokenResponse = z
  .object({
    access_token: z
      .string()
      .meta({ description: 'An RFC 9068 JWT (ES256 by default, typ at+jwt), verifiable with the JWKS key its kid names.', example: ACCESS_TOKEN }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().meta({ description: 'Seconds the access token lives.', example: 3600 }),
    refresh_token: z.string().optional().meta({ description: 'Authorization code and refresh grants only.', example: REFRESH_TOKEN }),
    scope: z.string().optional().meta({ description: 'The granted scopes, space-separated; absent when the app holds none.', example: 'hr:read' }),
  })
  .meta({ id: 'TokenResponse', description: 'RFC 6749 section 5.1.' });

const tokenHeaders = {
  'Cache-Control': { description: 'Token answers are never stored (RFC 6749 5.1).', schema: z.literal('no-store'), required: true },
  Pragma: { description: 'For HTTP/1.0 caches (RFC 6749 5.1).', schema: z.literal('no-cache'), required: true },
};

const tokenForm = (what: 'introspect' | 'revoke', id: string) =>
  z
    .object({
      token: required('token', `send the token to ${what} as the form field token`).meta({
        description: 'An access token or a refresh token issued here.',
        example: ACCESS_TOKEN,
      }),
      token_type_hint: z.string().optional().meta({ description: "Ignored: the token's form says what it is; no value is refused.", example: 'access_token' }),
      ...clientFields,
    })
    .meta({ id });

const introspectBody = tokenForm('introspect', 'IntrospectionRequest');
const revokeBody = tokenForm('revoke', 'RevocationRequest');

const introspection = z
  .discriminatedUnion('active', [
    z
      .object({
        active: z.literal(true),
        scope: z.string().meta({ description: 'What the token can do now, space-separated; "" when the app holds no scope.', example: 'hr:read' }),
        client_id: z.string().meta({ example: APP_ID }),
        token_type: z.enum(['Bearer', 'refresh_token']),
        exp: z.number().int().meta({ example: 1767229200 }),
        iat: z.number().int().meta({ example: 1767225600 }),
        sub: z.string().meta({ description: 'The App ID (client credentials) or the app owner (authorization code).', example: APP_ID }),
        aud: z.string().optional().meta({ description: 'Access tokens only.', example: 'https://sandbox.example.org/playground' }),
        iss: z.string().meta({ example: 'https://sandbox.example.org' }),
        jti: z.string().optional().meta({ description: 'Access tokens only.' }),
      })
      .meta({ description: 'A live token.' }),
    z.strictObject({ active: z.literal(false) }).meta({ description: "Anything not live: unknown, malformed, expired, revoked, used, another client's." }),
  ])
  .meta({ id: 'Introspection', description: 'RFC 7662 section 2.2.' });

/**
 * RFC 6749 4.1.1 with RFC 7636 4.3. Documented, not validated here: every
 * refusal of an authorization request is the oauth service's, because
 * whether it redirects depends on whether the client and the redirect URI
 * have been verified first (RFC 6749 4.1.2.1), a repeated parameter included.
 */
const authorizeQuery = z.object({
  response_type: z
    .literal('code')
    .meta({ description: 'Only code. Missing: redirected invalid_request; another value: redirected unsupported_response_type.' }),
  client_id: z.string().meta({ description: 'The App ID. Missing, unknown or repeated: 400, never redirected.', example: APP_ID }),
  redirect_uri: z.string().optional().meta({
    description:
      'A redirect URI registered for the app, character for character. Optional only when the app has exactly one (RFC 6749 3.1.2.3). Unregistered or repeated: 400, never redirected.',
    example: REDIRECT_URI,
  }),
  scope: scope.meta({ description: "Space-separated, some of the app's scopes; absent or blank: all of them. Otherwise: redirected invalid_scope." }),
  state: z.string().optional().meta({ description: 'Returned exactly as sent in the redirect; use it against CSRF.', example: 'af0ifjsldkj' }),
  code_challenge: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .optional()
    .meta({ description: 'PKCE: BASE64URL(SHA256(code_verifier)), 43 characters, no padding.', example: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' }),
  code_challenge_method: z.literal('S256').optional().meta({ description: 'S256 only, and required with code_challenge (plain is refused).' }),
});

const metadata = z
  .object({
    issuer: z.string().meta({ description: 'The public base URL the request came through.', example: 'https://sandbox.example.org' }),
    authorization_endpoint: z.string().meta({ example: 'https://sandbox.example.org/oauth/authorize' }),
    token_endpoint: z.string().meta({ example: 'https://sandbox.example.org/oauth/token' }),
    introspection_endpoint: z.string(),
    revocation_endpoint: z.string(),
    jwks_uri: z.string().meta({ example: 'https://sandbox.example.org/.well-known/jwks.json' }),
    response_types_supported: z.array(z.string()).meta({ example: ['code'] }),
    response_modes_supported: z.array(z.string()).meta({ example: ['query'] }),
    grant_types_supported: z.array(z.enum(GRANT_TYPES)),
    code_challenge_methods_supported: z.array(z.string()).meta({ example: ['S256'] }),
    token_endpoint_auth_methods_supported: z.array(z.string()).meta({ example: ['client_secret_basic', 'client_secret_post'] }),
    introspection_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    authorization_response_iss_parameter_supported: z.literal(true).meta({ description: 'RFC 9207: the authorization redirect carries iss.' }),
    service_documentation: z.string(),
  })
  .meta({ id: 'AuthorizationServerMetadata', description: 'RFC 8414 section 2; every URL absolute, from the public base URL.' });

/** An ES256 key as the JWKS lists it (RFC 7517 appendix A.1's public point), the example of a JWK and the first of the JWKSet's. */
const EC_JWK_EXAMPLE = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
  kid: 'oKIywvGUpTVTyxMQ3bwIIeQUudfr_CkLMjCE19ECD-U',
  alg: 'ES256',
  use: 'sig',
};
const kid = z.string().meta({ description: "The key's RFC 7638 thumbprint: the kid in the header of every token it signs." });
const use = z.literal('sig');
const jwkSet = z
  .object({
    keys: z.array(
      z
        .discriminatedUnion('kty', [
          z
            .object({
              kty: z.literal('EC'),
              crv: z.literal('P-256'),
              x: z.string().meta({ description: 'The public point, base64url.' }),
              y: z.string(),
              kid,
              alg: z.literal('ES256'),
              use,
            })
            .meta({ description: 'The key of ES256 access tokens (the default, OAUTH_ACCESS_TOKEN_ALG).' }),
          z
            .object({
              kty: z.literal('RSA'),
              n: z.string().meta({ description: 'The modulus, base64url.' }),
              e: z.string().meta({ example: 'AQAB' }),
              kid,
              alg: z.literal('RS256'),
              use,
            })
            .meta({ description: 'JWT_SIGNING_KEY: RS256 playground JWTs, and RS256 access tokens when so configured or issued by an older replica.' }),
          z
            .object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid, alg: z.literal('EdDSA'), use })
            .meta({ description: 'The key of EdDSA access tokens; listed only when OAUTH_ACCESS_TOKEN_ALG is EdDSA.' }),
        ])
        .meta({
          id: 'JWK',
          description:
            'RFC 7517 section 4: a public key that verifies access tokens (chosen by the kid in their header); the RSA one also verifies RS256 playground JWTs.',
          example: EC_JWK_EXAMPLE,
        }),
    ),
  })
  .meta({
    id: 'JWKSet',
    description: 'RFC 7517 section 5: the key that signs new access tokens first (ES256 by default), then the others a token may name.',
    example: {
      keys: [
        EC_JWK_EXAMPLE,
        {
          kty: 'RSA',
          n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
          e: 'AQAB',
          kid: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
          alg: 'RS256',
          use: 'sig',
        },
      ],
    },
  });

const publicCache = {
  'Cache-Control': { description: 'The key changes only with JWT_SIGNING_KEY.', schema: z.literal('public, max-age=300'), required: true },
};
const noStore = { 'Cache-Control': { description: 'Never stored by a cache.', schema: z.literal('no-store'), required: true } };

const tokenRefusals = {
  400: "RFC 6749 5.2: invalid_request (the body is malformed or not a form; a parameter repeated; code or refresh_token missing for its grant; redirect_uri missing when the authorization request had one; a malformed code_verifier; the client authenticated twice), unsupported_grant_type, invalid_grant (a code or refresh token unknown, expired, already used or another client's; a redirect_uri that differs; a PKCE verifier missing, wrong or unexpected), invalid_scope (a scope the app, the code or the grant does not hold).",
  401: 'invalid_client: no client credentials, wrong ones, or a revoked or deleted app. WWW-Authenticate: Basic when the client used the Basic header or sent no credentials.',
};

const contracts = {
  authorize: {
    query: authorizeQuery,
    checkedByService: ['query'],
    description:
      'Approved at once (the app owner is taken to approve): there is no consent screen. Once the client and the redirect URI are verified, every answer is a redirect to it; before, a refusal is a 400 that never redirects (RFC 6749 4.1.2.1).',
    responses: {
      302: {
        description:
          'To the redirect URI: with code, state (as sent) and iss (RFC 9207) when approved; with error (invalid_request, unsupported_response_type, invalid_scope), error_description, state and iss when refused (RFC 6749 4.1.2, 4.1.2.1).',
        headers: {
          Location: {
            description: "The redirect URI with the answer's parameters added to its query.",
            schema: z
              .string()
              .meta({ example: `${REDIRECT_URI}?code=Q2Vv3k1d8JmXzq0bR7tYw5nP4sL6hG9fA2cE1uK3oI8&state=af0ifjsldkj&iss=https%3A%2F%2Fsandbox.example.org` }),
            required: true,
          },
          ...noStore,
        },
      },
    },
    refusals: {
      400: 'Not redirected, since the redirect URI is not verified (RFC 6749 4.1.2.1): invalid_request (client_id missing, unknown or repeated; redirect_uri unregistered, repeated, or left out when the app has not exactly one), unauthorized_client (the app is revoked).',
    },
  },
  token: {
    body: tokenBody,
    logAs: logClient,
    refusalCodes: { grant_type: 'unsupported_grant_type' },
    serviceAuth: ['basic', 'none'],
    description:
      'Client authentication (required): the Basic header with App ID and App Secret, each form-urlencoded first (client_secret_basic), or client_id and client_secret in the body (client_secret_post), never both. Without a body, or without grant_type: client_credentials.',
    responses: { 200: { description: 'RFC 6749 5.1.', schema: tokenResponse, headers: tokenHeaders } },
    refusals: tokenRefusals,
  },
  introspect: {
    body: introspectBody,
    logAs: logClient,
    serviceAuth: ['basic', 'none'],
    description:
      "Anyone may introspect. A caller that names a client (client_id, with or without a secret) hears only about that client's tokens; a secret, when sent, must be right. token_type_hint is ignored.",
    responses: { 200: { description: 'RFC 7662 2.2: the live token described, or only {"active": false}.', schema: introspection, headers: tokenHeaders } },
    refusals: { 400: 'invalid_request: the body is malformed or not a form, token is missing, or a parameter is repeated.', 401: tokenRefusals[401] },
  },
  revoke: {
    body: revokeBody,
    logAs: logClient,
    serviceAuth: ['basic', 'none'],
    description:
      "Client authentication required, as at the token endpoint. An access token ends alone; a refresh token ends its whole grant (RFC 7009 2.1). A token unknown, expired or another client's is answered the same way, with no effect (RFC 7009 2.2).",
    responses: { 200: { description: 'Revoked, or nothing to revoke: no body (RFC 7009 2.2).', headers: noStore } },
    refusals: { 400: 'invalid_request: the body is malformed or not a form, token is missing, or a parameter is repeated.', 401: tokenRefusals[401] },
  },
  metadata: {
    noUpstreamRefusals: true,
    responses: { 200: { description: 'RFC 8414: the endpoints, as absolute URLs built from the public base URL.', schema: metadata } },
  },
  jwks: {
    responses: {
      200: {
        description: 'RFC 7517: every key an access token may be verified with, the one that signs new tokens first; pick by the kid in the token header.',
        schema: jwkSet,
        headers: publicCache,
      },
    },
  },
} satisfies Record<string, Contract>;

/** The grants the token endpoint knows; any other is refused, and not a fact worth noting. */
const GRANTS = new Set(['client_credentials', 'authorization_code', 'refresh_token']);

/** Facts of a token request for the exercises (docs/exercises.md): the grant asked for, and whether the code came with its PKCE verifier. */
function noteGrant(ctx: RouteContext, body: { grant_type?: string; code_verifier?: string }): void {
  // No grant_type is client_credentials with the Basic header (the contract's default).
  const grant = body.grant_type ?? 'client_credentials';
  if (!GRANTS.has(grant)) return;
  ctx.fact('grant', grant);
  // The authorize endpoint takes S256 challenges only.
  if (grant === 'authorization_code' && body.code_verifier) ctx.fact('pkce', 'S256');
}

export function oauthRoutes(deps: GatewayDeps): Route[] {
  /** An OAuth endpoint: RFC 6749 errors, never cached. */
  const endpoint = (spec: RouteSpec) => route({ errors: 'oauth', noStore: true, ...spec });
  /** An introspection or revocation request: one token, its hint, and how the client authenticated. */
  const tokenRequest = (ctx: RouteContext, body: z.output<typeof introspectBody>) => ({
    token: body.token,
    tokenTypeHint: body.token_type_hint ?? '',
    client: clientAuthentication(ctx, body),
  });

  return [
    endpoint({
      methods: 'GET',
      path: OAUTH_PATHS.authorize,
      summary: 'OAuth 2.0 authorization code flow (PKCE S256), approved automatically: redirects to redirect_uri with code or error.',
      contract: contracts.authorize,
      handler: async (ctx) => {
        // The query as sent: the oauth service judges presence and repetition itself (contracts.authorize).
        const names = Object.keys(authorizeQuery.shape);
        const query = ctx.query;
        const value = (name: string) => query.get(name) ?? '';
        if (value('client_id')) ctx.logAs = { appId: value('client_id'), style: 'oauth2' };
        const { location } = await deps.clients.oauth.authorize(
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
      // Without a body the request is client_credentials with the Basic header: documented as an optional body.
      bodyOptional: true,
      contract: contracts.token,
      handler: async (ctx) => {
        const body: Partial<Record<'grant_type' | 'scope' | 'code' | 'redirect_uri' | 'code_verifier' | 'refresh_token', string>> & ClientFields = inputOf(
          ctx,
          contracts.token,
        ).body;
        noteGrant(ctx, body);
        const token = await deps.clients.oauth.token(
          {
            grantType: body.grant_type ?? '',
            client: clientAuthentication(ctx, body),
            scope: body.scope ?? '',
            code: body.code ?? '',
            redirectUri: body.redirect_uri ?? '',
            codeVerifier: body.code_verifier ?? '',
            refreshToken: body.refresh_token ?? '',
            issuer: ctx.baseUrl,
            // The contract refused any repeated parameter, and counts an empty one as absent (RFC 6749 3.2).
            repeated: [],
            hasScope: body.scope !== undefined,
            hasCodeVerifier: body.code_verifier !== undefined,
          },
          ctx.call(),
        );
        if (body.grant_type === 'refresh_token' && token.refreshToken) ctx.fact('rotated', 'true');
        return json(tokenJson(token), 200, { ...NO_STORE });
      },
    }),
    endpoint({
      methods: 'POST',
      path: OAUTH_PATHS.introspect,
      summary: 'OAuth 2.0 token introspection (RFC 7662): form field token; client authentication optional.',
      body: 'form',
      contract: contracts.introspect,
      handler: async (ctx) => {
        const answer = await deps.clients.oauth.introspect(tokenRequest(ctx, inputOf(ctx, contracts.introspect).body), ctx.call());
        return json(introspectionJson(answer), 200, { ...NO_STORE });
      },
    }),
    endpoint({
      methods: 'POST',
      path: OAUTH_PATHS.revoke,
      summary: 'OAuth 2.0 token revocation (RFC 7009): form field token; client authentication required.',
      body: 'form',
      contract: contracts.revoke,
      handler: async (ctx) => {
        await deps.clients.oauth.revoke(tokenRequest(ctx, inputOf(ctx, contracts.revoke).body), ctx.call());
        return empty(200, { 'Content-Length': 0 });
      },
    }),
    route({
      methods: 'GET',
      path: OAUTH_PATHS.metadata,
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414).',
      contract: contracts.metadata,
      // Metadata documents: read by libraries at start-up, never counted.
      rateLimited: false,
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
          grant_types_supported: GRANT_TYPES,
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
      summary: 'The public keys that verify access tokens (ES256 by default) and RS256 playground JWTs, as a JWK Set.',
      contract: contracts.jwks,
      rateLimited: false,
      handler: async (ctx) => {
        const { jwkJson, jwksJson } = await deps.clients.oauth.getJwtPublicKey({}, ctx.call());
        // An oauth service older than jwks_json (a rolling upgrade) has one key: the RSA one.
        return json(jwksJson ? JSON.parse(jwksJson) : { keys: [JSON.parse(jwkJson)] }, 200, { 'Cache-Control': 'public, max-age=300' });
      },
    }),
  ];
}
