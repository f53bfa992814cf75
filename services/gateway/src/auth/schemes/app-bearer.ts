import { challenges } from '@sandbox/contracts';
import type { BackendClients } from '../../clients';
import { authorizationValue, verdictOf, type AuthScheme } from '../scheme';

export const APP_BEARER_PREFIX = 'bt_';
export const BEARER_CHALLENGE = challenges.CHALLENGE.bearer;

/** RFC 6750 challenge of the app's own tokens: error="invalid_token" once one was refused. */
export const bearerChallenge = (refused: boolean) => (refused ? `${BEARER_CHALLENGE}, error="invalid_token"` : BEARER_CHALLENGE);

/** The app bearer token (`Authorization: Bearer bt_…`), issued with the app. */
export function appBearerScheme(clients: BackendClients, cacheMs: number): AuthScheme {
  return {
    name: 'bearer',
    words: `Authorization: Bearer with the app bearer token (${APP_BEARER_PREFIX}…)`,
    cacheMs,
    detect(ctx) {
      const value = authorizationValue(ctx, 'bearer');
      // Another kind of bearer token is taken only where no other scheme claims it, to say why it fails here.
      return value === undefined ? undefined : { value, sure: value.startsWith(APP_BEARER_PREFIX) };
    },
    async verify(bearerToken, ctx) {
      if (!bearerToken.startsWith(APP_BEARER_PREFIX)) return { ok: false, reason: `An app bearer token starts with ${APP_BEARER_PREFIX}.` };
      return verdictOf('bearer', (await clients.identity.verifyBearerToken({ bearerToken }, { requestId: ctx.requestId })).check);
    },
    challenge: bearerChallenge,
  };
}
