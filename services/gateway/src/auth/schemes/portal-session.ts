import { challenges } from '@sandbox/contracts';
import type { BackendClients } from '../../clients';
import type { AuthScheme } from '../scheme';

const REALM = challenges.CHALLENGE.portal;
const SESSION_TOKEN = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/**
 * The portal session: `Authorization: Bearer <session JWT>` from POST
 * /api/auth/login (or a trusted identity provider), checked by identity on
 * every request and not remembered here. Identity remembers a session it
 * verified for at most VERIFICATION_CACHE_MS and drops it on every replica
 * at sign-out, so sign-out takes effect at once (docs/state.md, "Caches").
 * Identity's refusals (session_ended, session_expired, invalid_session) pass
 * through with this scheme's challenge.
 */
export function portalSessionScheme(clients: BackendClients): AuthScheme {
  return {
    name: 'portal_session',
    words: 'Authorization: Bearer with the portal session token from POST /api/auth/login',
    cacheMs: 0,
    detect(ctx) {
      const match = SESSION_TOKEN.exec(ctx.headers.authorization ?? '');
      return match ? { value: match[1], sure: true } : undefined;
    },
    async verify(token, ctx) {
      const { user, operator } = await clients.identity.verifySession({ token }, { requestId: ctx.requestId });
      if (!user) return { ok: false, reason: 'The session is not valid.' };
      return { ok: true, credential: { kind: 'session', scheme: 'portal_session', user, token, operator } };
    },
    challenge: (refused) => (refused ? `${REALM}, error="invalid_token"` : REALM),
    missing: { code: 'session_required', message: 'Sign in first: send the token from POST /api/auth/login as Authorization: Bearer <token>.' },
  };
}
