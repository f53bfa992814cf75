import type { common } from '@sandbox/contracts';
import { usable, type DirectoryApp } from '../app-directory';
import { verifySignedAccessToken, type AccessTokenClaims } from './access-token';
import type { OAuth2Deps } from './deps';
import { GrantState, type RefreshRecord } from './grant-state';
import { REFRESH_TOKEN_PATTERN } from './secrets';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The app is usable and still holds every scope of the token: a remembered
 * view that would take one away (a 403 later) is read again first, in case
 * the scope was given back a moment ago.
 */
const holding = (scopes: readonly string[]) => (app: DirectoryApp) => usable(app) && scopes.every((scope) => app.principal!.scopes.includes(scope));

export type LiveAccessToken = { ok: true; claims: AccessTokenClaims; principal: common.AppPrincipal } | { ok: false; reason: string };

/**
 * Whether an access token works right now: our signature, unexpired (by the
 * injected clock), not revoked by jti or through its grant, and its app still
 * there and active (identity's LookupApp, remembered at most 500 ms
 * and dropped on every change, so revoking or deleting an app ends its tokens
 * at once). It can do what it was issued for and the app still holds.
 */
export async function checkAccessToken(deps: OAuth2Deps, token: string, requestId?: string): Promise<LiveAccessToken> {
  const signed = await verifySignedAccessToken(deps, token);
  if (!signed.ok) return { ok: false, reason: signed.reason };
  const { claims } = signed;
  const state = new GrantState(deps.store, deps.clock);
  const tokenScopes = claims.scope.split(' ').filter((scope) => scope !== '');
  const [revoked, grantRevoked, app] = await Promise.all([
    state.accessTokenRevocation(claims.jti),
    claims.grant_id ? state.grantRevocation(claims.grant_id) : undefined,
    deps.apps.lookup(claims.client_id, requestId, holding(tokenScopes)),
  ]);
  if (revoked) return { ok: false, reason: `The access token was revoked at ${iso(revoked.at)}: ${revoked.reason}.` };
  if (grantRevoked) return { ok: false, reason: `The access token's grant was revoked at ${iso(grantRevoked.at)}: ${grantRevoked.reason}.` };
  if (!app.found || !app.principal) return { ok: false, reason: 'The app this access token was issued to has been deleted.' };
  if (!app.active) return { ok: false, reason: 'The app this access token was issued to is revoked.' };
  return { ok: true, claims, principal: { ...app.principal, scopes: app.principal.scopes.filter((scope) => tokenScopes.includes(scope)) } };
}

export type LiveRefreshToken = { ok: true; record: RefreshRecord; principal: common.AppPrincipal } | { ok: false };

/** Whether a refresh token would be accepted now (unused, unexpired, its grant and app live); for introspection. */
export async function checkRefreshToken(deps: OAuth2Deps, token: string, requestId?: string): Promise<LiveRefreshToken> {
  if (!REFRESH_TOKEN_PATTERN.test(token)) return { ok: false };
  const state = new GrantState(deps.store, deps.clock);
  const record = await state.findRefresh(token);
  if (!record || deps.clock() >= record.expiresAt) return { ok: false };
  const [use, revoked, app] = await Promise.all([
    state.refreshUse(token),
    state.grantRevocation(record.grantId),
    deps.apps.lookup(record.clientId, requestId, holding(record.scope)),
  ]);
  if (use || revoked || !app.found || !app.active || !app.principal) return { ok: false };
  return { ok: true, record, principal: { ...app.principal, scopes: app.principal.scopes.filter((scope) => record.scope.includes(scope)) } };
}
