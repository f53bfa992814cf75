import type { oauth } from '@sandbox/contracts';
import { authenticateClient, namedClient, presentedSecret } from './client-auth';
import type { OAuth2Deps } from './deps';
import { oauthError } from './errors';
import { checkAccessToken, checkRefreshToken } from './live-tokens';
import { scopeString } from './scope';
import { REFRESH_TOKEN_PREFIX } from './secrets';

const INACTIVE: oauth.IntrospectResponse = { active: false, sub: '', clientId: '', scope: '', exp: 0, iat: 0, tokenType: '', iss: '', jti: '', aud: '' };

/**
 * RFC 7662. Who may ask: anyone (the spec lists only `token`, and a learner's
 * first introspection usually carries no credentials). A caller that names a
 * client (client_id, with or without a secret) hears only about that client's
 * tokens: another client's token reads {active:false} (RFC 7662 4 lets a
 * server answer differently per caller). A secret that is sent must be right
 * (401 invalid_client otherwise). Anything not live reads exactly
 * {active:false}. token_type_hint is a hint only: the token's form decides.
 */
export async function introspect(deps: OAuth2Deps, request: oauth.IntrospectRequest, requestId?: string): Promise<oauth.IntrospectResponse> {
  if (request.token === '') throw oauthError('invalid_request', 'token is required: send the token to introspect as the form field token.');
  if (presentedSecret(request.client)) await authenticateClient(deps, request.client, requestId);
  const caller = namedClient(request.client);

  if (request.token.startsWith(REFRESH_TOKEN_PREFIX)) {
    const live = await checkRefreshToken(deps, request.token, requestId);
    if (!live.ok || (caller && caller !== live.record.clientId)) return INACTIVE;
    const { record, principal } = live;
    return {
      ...INACTIVE,
      active: true,
      sub: record.sub,
      clientId: record.clientId,
      scope: scopeString(principal.scopes),
      exp: Math.floor(record.expiresAt / 1000),
      iat: Math.floor(record.issuedAt / 1000),
      tokenType: 'refresh_token',
      iss: record.issuer,
    };
  }
  const live = await checkAccessToken(deps, request.token, requestId);
  if (!live.ok || (caller && caller !== live.claims.client_id)) return INACTIVE;
  const { claims, principal } = live;
  return {
    active: true,
    sub: claims.sub,
    clientId: claims.client_id,
    scope: scopeString(principal.scopes),
    exp: claims.exp,
    iat: claims.iat,
    tokenType: 'Bearer',
    iss: claims.iss,
    jti: claims.jti,
    aud: claims.aud,
  };
}
