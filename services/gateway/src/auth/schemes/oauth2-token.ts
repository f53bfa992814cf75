import type { AppError } from '@sandbox/runtime';
import type { BackendClients } from '../../clients';
import { authorizationValue, verdictOf, type AuthScheme } from '../scheme';
import { APP_BEARER_PREFIX, bearerChallenge } from './app-bearer';
import { isAccessTokenJwt } from './jwt';

/** An OAuth 2.0 access token from POST /oauth/token (`Authorization: Bearer …`), checked by the oauth service. */
export function oauth2TokenScheme(clients: BackendClients, cacheMs: number): AuthScheme {
  return {
    name: 'oauth2',
    words: 'Authorization: Bearer with an OAuth 2.0 access token',
    cacheMs,
    detect(ctx) {
      const value = authorizationValue(ctx, 'bearer');
      if (value === undefined || value.startsWith(APP_BEARER_PREFIX)) return undefined;
      // RFC 9068: an access token says so in its header (typ at+jwt); another token is taken only if no scheme claims it.
      return { value, sure: isAccessTokenJwt(value) };
    },
    async verify(token, ctx) {
      try {
        return verdictOf('oauth2', (await clients.oauth.verifyAccessToken({ token }, { requestId: ctx.requestId })).check);
      } catch (error) {
        // Until the OAuth service issues tokens, no token of this kind can be valid.
        if ((error as AppError).code === 'not_implemented') return { ok: false, reason: 'The bearer token is not valid.' };
        throw error;
      }
    },
    challenge: bearerChallenge,
  };
}
