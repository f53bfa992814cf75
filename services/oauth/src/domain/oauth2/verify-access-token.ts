import type { common } from '@sandbox/contracts';
import type { OAuth2Deps } from './deps';
import { describable } from './errors';
import { checkAccessToken } from './live-tokens';

/**
 * For the gateway's OAuth 2.0 scheme: whose live access token this is. A
 * refusal is an answer (ok=false, the rule that failed), not an error, so the
 * gateway can cache it like an acceptance.
 */
export async function verifyAccessToken(deps: OAuth2Deps, token: string, requestId?: string): Promise<common.CredentialCheck> {
  if (token === '') return { ok: false, reason: 'No access token was given.', principal: undefined };
  const live = await checkAccessToken(deps, token, requestId);
  if (!live.ok) return { ok: false, reason: describable(live.reason), principal: undefined };
  return { ok: true, reason: '', principal: live.principal };
}
