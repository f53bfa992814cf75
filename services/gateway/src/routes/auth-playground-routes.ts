import { decodeJwt, decodeProtectedHeader } from 'jose';
import { appPrincipalOf, type SchemeName } from '../auth/scheme';
import type { GatewayDeps } from '../deps';
import type { RouteContext } from '../http/context';
import { badRequest } from '../http/errors';
import { json, type Reply } from '../http/reply';
import { route, type HttpMethod, type Route } from '../http/route';
import { OAUTH_PATHS } from './oauth-routes';

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

/** /playground/auth/<style>: one endpoint per style, each accepting that style only (spec, "Authentication playground"). */
export function authPlaygroundRoutes(deps: GatewayDeps): Route[] {
  const { oauth } = deps.clients;
  const style = (scheme: SchemeName, path: string, summary: string, methods: HttpMethod[] = ['GET'], note?: string) =>
    route({ methods, path: `${AUTH_PLAYGROUND}/${path}`, summary, auth: [scheme], noStore: true, handler: (ctx) => authenticatedReply(ctx, note) });

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
      handler: async (ctx) => {
        const issued = await oauth.issueJwt({ appId: appPrincipalOf(ctx).appId, issuer: ctx.baseUrl }, ctx.call());
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
      handler: (ctx) => {
        const token = (ctx.body as { token?: unknown }).token;
        if (token === undefined) throw badRequest('invalid_body', 'Send {"token": "<a JWT>"}.');
        if (typeof token !== 'string') throw badRequest('invalid_body', 'token must be a string.');
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
      handler: async (ctx) => {
        const key = await oauth.getJwtPublicKey({}, ctx.call());
        return json({ alg: 'RS256', kid: key.kid, pem: key.pem, jwks_uri: `${ctx.baseUrl}${OAUTH_PATHS.jwks}` }, 200, { 'Cache-Control': 'public, max-age=300' });
      },
    }),
  ];
}
