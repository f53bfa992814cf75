import type { oauth } from '@sandbox/contracts';
import { verifySignedAccessToken } from './access-token';
import { authenticateClient } from './client-auth';
import type { OAuth2Deps } from './deps';
import { oauthError } from './errors';
import { GrantState } from './grant-state';
import { REFRESH_TOKEN_PATTERN } from './secrets';

/**
 * RFC 7009, client authentication required. A refresh token ends its whole
 * grant: its refresh tokens and the access tokens issued from it (RFC 7009
 * 2.1). An access token ends alone, remembered by jti until it expires. A
 * token that is unknown, invalid, expired or another client's is answered
 * the same way, with no effect (RFC 7009 2.2). token_type_hint is ignored:
 * the token's form says what it is, so no hint is unsupported.
 */
export async function revoke(deps: OAuth2Deps, request: oauth.RevokeRequest, requestId?: string): Promise<void> {
  const client = await authenticateClient(deps, request.client, requestId);
  if (request.token === '') throw oauthError('invalid_request', 'token is required: send the token to revoke as the form field token.');
  const state = new GrantState(deps.store, deps.clock, deps.changes);
  const lifetimes = { accessMs: deps.config.accessTokenTtlSeconds * 1000, refreshMs: deps.config.refreshTokenTtlSeconds * 1000 };

  if (REFRESH_TOKEN_PATTERN.test(request.token)) {
    const record = await state.findRefresh(request.token);
    if (record && record.clientId === client.appId) await state.revokeGrant(record.grantId, 'the client revoked it (RFC 7009)', lifetimes);
    return;
  }
  // Only a token we signed, for this client and still unexpired, writes anything: made-up tokens cannot fill the store.
  const signed = await verifySignedAccessToken(deps, request.token);
  if (signed.ok && signed.claims.client_id === client.appId) {
    await state.revokeAccessToken(signed.claims.jti, signed.claims.exp * 1000, 'the client revoked it (RFC 7009)');
  }
}
