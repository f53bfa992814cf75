import { z } from 'zod';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { appPrincipalOf, type SchemeName } from '../../auth/scheme';
import type { GatewayDeps } from '../../deps';
import type { RouteContext } from '../../http/context';
import { inputOf, type Contract } from '../../http/contract';
import { badRequest } from '../../http/errors';
import { json, type Reply } from '../../http/reply';
import { routeOf, type HttpMethod, type Route } from '../../http/route';
import { OAUTH_PATHS } from '../oauth2/oauth-routes';

/** Every row here is for auth (http/route-family.ts). */
const route = routeOf('auth');

export const AUTH_PLAYGROUND = '/playground/auth';

/** What a style's endpoint answers once the credential was right: the app, the style and the scopes (and a note where one teaches). */
function authenticatedReply(ctx: RouteContext, note?: string): Reply {
  const principal = appPrincipalOf(ctx);
  return json({
    authenticated: true,
    style: ctx.credential?.scheme,
    app: { id: principal.id, appId: principal.appId },
    scopes: principal.scopes,
    ...(note ? { note } : {}),
  });
}

const QUERY_KEY_NOTE =
  'This worked, but an API key in the query string is the weaker form: URLs land in server and proxy logs, browser history and Referer headers. Prefer the x-api-key header.';

// ---- schemas: what the dispatcher validates and the OpenAPI document shows ----
// Credentials are the auth schemes' (documented as each operation's
// security, checked before anything here); what a scheme refuses, and why,
// is the oauth service's (docs/auth-playground.md).

const APP_ID = 'app_Xq3V0d5yH2kq8Jr1mT9bWg';
const STYLES = ['basic', 'bearer', 'api_key_header', 'api_key_query', 'oauth2', 'oauth1', 'hmac', 'digest', 'jwt'] as const satisfies readonly SchemeName[];

const authenticatedApp = z
  .object({
    authenticated: z.literal(true),
    style: z.enum(STYLES).meta({ description: 'The style that authenticated the request.', example: 'api_key_header' }),
    app: z.object({ id: z.string().meta({ example: '66f1c0a95e2b4d7a9c3e1f20' }), appId: z.string().meta({ example: APP_ID }) }),
    scopes: z.array(z.string()).meta({ description: 'What the credential may read now.', example: ['hr:read'] }),
    note: z.string().optional().meta({ description: 'Where the style has a lesson (api-key-query).' }),
  })
  .meta({ id: 'AuthenticatedApp', description: 'The app the credential belongs to, the style and the scopes.' });

const noStore = { 'Cache-Control': { description: 'Never stored by a cache.', schema: z.literal('no-store'), required: true } };
const publicCache = {
  'Cache-Control': { description: 'The key changes only with JWT_SIGNING_KEY.', schema: z.literal('public, max-age=300'), required: true },
};

/** Why each style's 401 comes, in a line (docs/auth-playground.md has every message). */
const REFUSED: Record<(typeof STYLES)[number], string> = {
  basic: 'No credential; not base64 of "App ID:App Secret"; a wrong App ID or App Secret; a revoked app.',
  bearer: 'No credential; not an app bearer token (bt_...); unknown or rotated; a revoked app.',
  api_key_header: 'The x-api-key header missing, empty, unknown or rotated.',
  api_key_query: 'api_key missing, empty, unknown, rotated or given twice.',
  oauth2: 'An access token that is not ours, expired, revoked, or of a revoked app (error="invalid_token", with the reason).',
  oauth1:
    'The oauth_problem as the code: signature_invalid (with the base string), nonce_used, timestamp_refused, token_rejected ("complete the three legs first"), token_expired, consumer_key_unknown...',
  hmac: 'A header missing; a timestamp in milliseconds, with a fraction or outside 300 s; a signature that does not match (the message names the common mistake); a replayed signature.',
  digest: 'A first request gets two fresh challenges (SHA-256 then MD5); a wrong answer, or a stale nonce (stale=true: answer again), gets them too.',
  jwt: 'Not a JWT; alg none or other than HS256/RS256; a signature that does not match (algorithm confusion named); expired; wrong or missing aud; an unknown or revoked app.',
};

const CHALLENGE = "WWW-Authenticate carries the style's challenge.";
const styleContract = (scheme: (typeof STYLES)[number]): Contract => ({
  responses: { 200: { description: 'The credential was right.', schema: authenticatedApp, headers: noStore } },
  refusals:
    scheme === 'oauth1'
      ? {
          400: 'A malformed signed request: parameter_absent, parameter_rejected, signature_method_rejected, version_rejected.',
          401: `${REFUSED.oauth1} ${CHALLENGE}`,
        }
      : { 401: `${REFUSED[scheme]} ${CHALLENGE}` },
  ...(scheme === 'digest'
    ? {
        query: z.object({
          algorithm: z.string().optional().meta({
            description:
              'SHA-256, SHA-256-sess, MD5 or MD5-sess (any case): the challenge offers only that algorithm, so a client that answers the last challenge can practise each one. Anything else: every challenge.',
            example: 'MD5',
          }),
        }),
      }
    : {}),
});

const jwtDecode = {
  // Strict, as every JSON body of the API: a misspelt field is refused by name rather than ignored.
  body: z
    .strictObject({
      token: z.string({ error: (issue) => (issue.input === undefined ? 'token is required: send {"token": "<a JWT>"}' : 'token must be a string') }).meta({
        description: 'A compact JWS: header.payload.signature.',
        example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhcHBfWHEzVjBkNXlIMmtxOEpyMW1UOWJXZyJ9.c2lnbmF0dXJl',
      }),
    })
    .meta({ id: 'JwtToDecode' }),
  noUpstreamRefusals: true,
  responses: {
    200: {
      description: 'Decoded, NOT verified.',
      schema: z
        .object({
          header: z.record(z.string(), z.unknown()).meta({ example: { alg: 'RS256', typ: 'JWT', kid: '...' } }),
          payload: z.record(z.string(), z.unknown()).meta({ example: { sub: APP_ID, aud: 'urn:training-sandbox:playground', exp: 1767229200 } }),
          verified: z.literal(false),
          note: z.string(),
        })
        .meta({ id: 'DecodedJwt' }),
    },
  },
  refusals: {
    400: 'invalid_body: the body is not a JSON object, or token is missing or not a string; malformed_body: not JSON; not_a_jwt: token is not three base64url parts whose first two are JSON objects.',
  },
} satisfies Contract;

const jwtIssue = {
  responses: {
    200: {
      description: 'Two tokens with the same claims, valid for an hour.',
      schema: z
        .object({
          token_type: z.literal('Bearer'),
          hs256: z.string().meta({ description: "HS256, keyed with the app's API key (its text as UTF-8 bytes)." }),
          rs256: z.string().meta({ description: "RS256, signed with the sandbox's key (the JWKS)." }),
          expires_in: z.number().int().meta({ example: 3600 }),
          audience: z.string().meta({ example: 'urn:training-sandbox:playground' }),
          issuer: z.string().meta({ example: 'https://sandbox.example.org' }),
          public_key: z.string().meta({ description: 'Where the PEM public key is.', example: 'https://sandbox.example.org/playground/auth/jwt/public-key' }),
          jwks_uri: z.string().meta({ example: 'https://sandbox.example.org/.well-known/jwks.json' }),
        })
        .meta({ id: 'IssuedJwts' }),
      headers: noStore,
    },
  },
  refusals: { 401: `${REFUSED.basic} WWW-Authenticate: Basic.` },
} satisfies Contract;

const jwtPublicKey = {
  responses: {
    200: {
      description: 'The key that verifies RS256 tokens.',
      schema: z
        .object({
          alg: z.literal('RS256'),
          kid: z.string().meta({ description: "The key's RFC 7638 thumbprint." }),
          pem: z.string().meta({
            description: 'SPKI, PEM.',
            example: '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA...\n-----END PUBLIC KEY-----\n',
          }),
          jwks_uri: z.string().meta({ example: 'https://sandbox.example.org/.well-known/jwks.json' }),
        })
        .meta({ id: 'JwtPublicKey' }),
      headers: publicCache,
    },
  },
} satisfies Contract;

/** /playground/auth/<style>: one endpoint per style, each accepting that style only (spec, "Authentication playground"). */
export function authPlaygroundRoutes(deps: GatewayDeps): Route[] {
  const style = (scheme: (typeof STYLES)[number], path: string, summary: string, methods: HttpMethod[] = ['GET'], note?: string) =>
    route({
      methods,
      path: `${AUTH_PLAYGROUND}/${path}`,
      summary,
      auth: [scheme],
      noStore: true,
      contract: styleContract(scheme),
      handler: (ctx) => authenticatedReply(ctx, note),
    });

  return [
    style('basic', 'basic', 'Authorization: Basic of App ID and App Secret (RFC 7617).'),
    style('bearer', 'bearer', 'Authorization: Bearer with the app bearer token (bt_…).'),
    style('api_key_header', 'api-key', 'The API key in the x-api-key header.'),
    style('api_key_query', 'api-key-query', 'The API key in the api_key query parameter (the weaker form).', ['GET'], QUERY_KEY_NOTE),
    style('oauth2', 'oauth2', 'Authorization: Bearer with an OAuth 2.0 access token from POST /oauth/token.'),
    style('oauth1', 'oauth1', 'A request signed with OAuth 1.0a, with the access token of the three legs.'),
    style('hmac', 'hmac', 'x-app-id, x-timestamp and x-signature: HMAC-SHA256 of "timestamp.METHOD.path" keyed with the API key.', ['POST', 'GET']),
    style('digest', 'digest', 'HTTP Digest (RFC 7616, SHA-256 or MD5): a first request gets the challenge; username App ID, password API key.'),
    style('jwt', 'jwt', 'Authorization: Bearer with a JWT from POST /playground/auth/jwt/issue; signature, exp and aud are checked.'),
    route({
      methods: 'POST',
      path: `${AUTH_PLAYGROUND}/jwt/issue`,
      summary: 'Basic App ID and App Secret: an HS256 token (keyed with the API key) and an RS256 token (the sandbox key).',
      auth: ['basic'],
      noStore: true,
      contract: jwtIssue,
      handler: async (ctx) => {
        const issued = await deps.clients.oauth.issueJwt({ appId: appPrincipalOf(ctx).appId, issuer: ctx.baseUrl }, ctx.call());
        return json({
          token_type: 'Bearer',
          hs256: issued.hs256,
          rs256: issued.rs256,
          expires_in: issued.expiresIn,
          audience: issued.audience,
          issuer: issued.issuer,
          public_key: `${ctx.baseUrl}${AUTH_PLAYGROUND}/jwt/public-key`,
          jwks_uri: `${ctx.baseUrl}${OAUTH_PATHS.jwks}`,
        });
      },
    }),
    route({
      methods: 'POST',
      path: `${AUTH_PLAYGROUND}/jwt/decode`,
      summary: 'JSON body {token}: the header and payload of a JWT, decoded but NOT verified.',
      body: 'json',
      contract: jwtDecode,
      handler: (ctx) => {
        const { token } = inputOf(ctx, jwtDecode).body;
        try {
          // jose decodes without verifying: exactly what this endpoint shows, and nothing it implies.
          return json({
            header: decodeProtectedHeader(token),
            payload: decodeJwt(token),
            verified: false,
            note: 'Decoding is not verifying: anyone can write this header and payload. GET /playground/auth/jwt checks the signature, exp and aud.',
          });
        } catch {
          throw badRequest('not_a_jwt', 'token is not a JWT: expected three base64url parts (header.payload.signature) whose first two are JSON objects.');
        }
      },
    }),
    route({
      methods: 'GET',
      path: `${AUTH_PLAYGROUND}/jwt/public-key`,
      summary: 'The PEM public key that verifies RS256 tokens (also at /.well-known/jwks.json).',
      contract: jwtPublicKey,
      handler: async (ctx) => {
        const key = await deps.clients.oauth.getJwtPublicKey({}, ctx.call());
        return json({ alg: 'RS256', kid: key.kid, pem: key.pem, jwks_uri: `${ctx.baseUrl}${OAUTH_PATHS.jwks}` }, 200, {
          'Cache-Control': 'public, max-age=300',
        });
      },
    }),
  ];
}
