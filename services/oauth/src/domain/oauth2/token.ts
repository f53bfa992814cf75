import type { common, oauth } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { issueAccessToken } from './access-token';
import { authenticateClient } from './client-auth';
import type { OAuth2Deps } from './deps';
import { oauthError } from './errors';
import { GrantState, type IssuedRefresh, type RefreshRecord } from './grant-state';
import { requireIssuer } from './issuer';
import { s256, verifierProblem } from './pkce';
import { differenceFromNearest } from './redirect-uri';
import { inOrderOf, requestedScopes, requireSubset, scopeString, stillHeld } from './scope';
import { newId, newRefreshToken, REFRESH_TOKEN_PATTERN, sameString } from './secrets';

const GRANTS = ['client_credentials', 'authorization_code', 'refresh_token'] as const;
type Grant = (typeof GRANTS)[number];

const AUTHORIZATION_REQUEST_URI = { nearest: 'The redirect_uri of the authorization request', any: 'the redirect_uri of the authorization request' };
const iso = (ms: number) => new Date(ms).toISOString();
const lifetimesOf = (deps: OAuth2Deps) => ({ accessMs: deps.config.accessTokenTtlSeconds * 1000, refreshMs: deps.config.refreshTokenTtlSeconds * 1000 });

/**
 * The token endpoint (RFC 6749 3.2): one of three grants, always with client
 * authentication. Client credentials gets no refresh token (RFC 6749 4.4.3).
 */
export async function token(deps: OAuth2Deps, request: oauth.TokenRequest, requestId?: string): Promise<oauth.TokenResponse> {
  const issuer = requireIssuer(request.issuer);
  if (request.repeated.length) {
    throw oauthError(
      'invalid_request',
      `${request.repeated.join(', ')} ${request.repeated.length === 1 ? 'was' : 'were'} sent more than once; send each parameter once (RFC 6749 3.2).`,
    );
  }
  const grant = (request.grantType || 'client_credentials') as Grant;
  if (!GRANTS.includes(grant)) {
    throw oauthError(
      'unsupported_grant_type',
      `grant_type ${quoteInput(request.grantType, { quotes: 'single' })} is not supported here: use client_credentials (the default), authorization_code or refresh_token.`,
    );
  }
  const client = await authenticateClient(deps, request.client, requestId);
  const state = new GrantState(deps.store, deps.clock, deps.changes);
  switch (grant) {
    case 'client_credentials':
      return clientCredentials(deps, request, client, issuer);
    case 'authorization_code':
      return authorizationCode(deps, state, request, client, issuer);
    case 'refresh_token':
      return refresh(deps, state, request, client, issuer);
  }
}

/** RFC 6749 4.4: the app acts for itself, so the token's subject is its App ID. */
async function clientCredentials(deps: OAuth2Deps, request: oauth.TokenRequest, client: common.AppPrincipal, issuer: string): Promise<oauth.TokenResponse> {
  const requested = requestedScopes(request.scope);
  if (requested) requireSubset(requested, client.scopes, 'the app holds', 'Ask for some of them, or leave scope out to get all.');
  const scope = requested ? inOrderOf(requested, client.scopes) : client.scopes;
  const access = await issueAccessToken(deps, { issuer, sub: client.appId, clientId: client.appId, scope });
  return { accessToken: access.token, tokenType: 'Bearer', expiresIn: deps.config.accessTokenTtlSeconds, refreshToken: '', scope: scopeString(scope) };
}

/**
 * RFC 6749 4.1.3 with RFC 7636 4.6. Nothing is consumed by a refused
 * attempt: the code is redeemed (atomically, once) only by a request that
 * passes every check. Presenting it again after that is a replay: refused,
 * and the grant of the first redemption is revoked (RFC 6819 4.4.1.1).
 */
async function authorizationCode(
  deps: OAuth2Deps,
  state: GrantState,
  request: oauth.TokenRequest,
  client: common.AppPrincipal,
  issuer: string,
): Promise<oauth.TokenResponse> {
  if (!request.code) throw oauthError('invalid_request', 'code is required: send the code that came back to your redirect URI.');
  const code = await state.findCode(request.code);
  if (!code) {
    const use = await state.codeUse(request.code);
    if (use && use.clientId === client.appId) await replayedCode(deps, state, use);
    if (use) throw oauthError('invalid_grant', 'The code was not issued to this client.');
    throw oauthError('invalid_grant', 'The code is not known: codes are single use and live 60 s; start again at the authorization endpoint.');
  }
  if (code.clientId !== client.appId) throw oauthError('invalid_grant', 'The code was not issued to this client.');
  const now = deps.clock();
  if (now >= code.expiresAt) {
    throw oauthError('invalid_grant', `The code expired at ${iso(code.expiresAt)}: codes live 60 s; start again at the authorization endpoint.`);
  }

  // RFC 6749 4.1.3: the redirect_uri of the authorization request, repeated exactly.
  if (request.redirectUri === '' && code.redirectUriSent) {
    throw oauthError('invalid_request', 'redirect_uri is required: the authorization request carried one, so send the same value here (RFC 6749 4.1.3).');
  }
  if (request.redirectUri !== '' && request.redirectUri !== code.redirectUri) {
    throw oauthError(
      'invalid_grant',
      `redirect_uri is not the one the code was issued for (the match is exact, character for character). ${differenceFromNearest(request.redirectUri, [code.redirectUri], AUTHORIZATION_REQUEST_URI)}`,
    );
  }
  checkVerifier(request, code.challenge);

  const requested = requestedScopes(request.scope);
  if (requested) requireSubset(requested, code.scope, 'the code was issued for', 'Ask for some of them, or leave scope out.');
  const granted = stillHeld(code.scope, client.scopes);
  if (requested) requireSubset(requested, granted, 'of this grant the app still holds', 'Ask for some of them, or leave scope out.');
  const scope = requested ? inOrderOf(requested, client.scopes) : granted;

  const grantId = newId();
  const grant = { issuer, client, sub: client.ownerId /* the owner approved, at once */, scope, grantScope: code.scope, grantId };
  const refresh = newRefresh(deps, grant);
  if (!(await state.redeemCode(request.code, { clientId: client.appId, grantId, redeemedAt: now }, Math.max(lifetimesOf(deps).accessMs, 60_000), refresh))) {
    // Another request redeemed it between our read and our claim.
    const use = await state.codeUse(request.code);
    if (use) await replayedCode(deps, state, use);
    throw oauthError('invalid_grant', 'The code was already redeemed; codes are single use. Start again at the authorization endpoint.');
  }
  return tokensFor(deps, grant, refresh.token);
}

/** RFC 7636 4.6, and RFC 9700 2.1.1: a code issued without a challenge refuses a verifier (no PKCE downgrade). */
function checkVerifier(request: oauth.TokenRequest, challenge: string): void {
  const sent = request.hasCodeVerifier || request.codeVerifier !== '';
  if (challenge === '') {
    if (sent) {
      throw oauthError(
        'invalid_grant',
        'code_verifier was sent, but the authorization request had no code_challenge: a verifier is accepted only for a code issued with a challenge (RFC 9700 2.1.1). Send code_challenge at authorization, or no verifier here.',
      );
    }
    return;
  }
  if (!sent) throw oauthError('invalid_grant', 'code_verifier is required: the authorization request carried a code_challenge (PKCE, RFC 7636 4.5).');
  const problem = verifierProblem(request.codeVerifier);
  if (problem) throw oauthError('invalid_request', problem);
  const received = s256(request.codeVerifier);
  if (!sameString(received, challenge)) {
    throw oauthError(
      'invalid_grant',
      `code_verifier does not match the code_challenge (RFC 7636 4.6): BASE64URL(SHA256(code_verifier)) of the verifier received is ${received}, the code_challenge sent at authorization was ${challenge}.`,
    );
  }
}

async function replayedCode(deps: OAuth2Deps, state: GrantState, use: { grantId: string; redeemedAt: number }): Promise<never> {
  await state.revokeGrant(use.grantId, `its authorization code was presented again after being redeemed at ${iso(use.redeemedAt)}`, lifetimesOf(deps));
  throw oauthError(
    'invalid_grant',
    `The code was already redeemed at ${iso(use.redeemedAt)}. Codes are single use; a second redemption means it may have leaked, so the tokens issued for it are now revoked (RFC 6819 4.4.1.1). Start again at the authorization endpoint.`,
  );
}

/**
 * RFC 6749 6 with rotation (RFC 9700 4.14.2): each refresh token works once
 * and is replaced by a new one of the same grant. Presenting a used one
 * revokes the grant: its refresh tokens and the access tokens issued from it.
 */
async function refresh(
  deps: OAuth2Deps,
  state: GrantState,
  request: oauth.TokenRequest,
  client: common.AppPrincipal,
  issuer: string,
): Promise<oauth.TokenResponse> {
  const presented = request.refreshToken;
  if (!presented) throw oauthError('invalid_request', 'refresh_token is required: send the refresh token from your last token response.');
  if (!REFRESH_TOKEN_PATTERN.test(presented)) {
    throw oauthError(
      'invalid_grant',
      'The refresh token is not one this sandbox issues (they are rt_ followed by 43 characters); send it exactly as received.',
    );
  }
  const record = await state.findRefresh(presented);
  if (!record) throw oauthError('invalid_grant', 'The refresh token is not known (or expired long ago); start again at the authorization endpoint.');
  if (record.clientId !== client.appId) throw oauthError('invalid_grant', 'The refresh token was not issued to this client.');

  const [use, revoked] = await Promise.all([state.refreshUse(presented), state.grantRevocation(record.grantId)]);
  if (revoked)
    throw oauthError(
      'invalid_grant',
      `The refresh token's grant was revoked at ${iso(revoked.at)}: ${revoked.reason}. Start again at the authorization endpoint.`,
    );
  if (use) await reusedRefresh(deps, state, record, use.usedAt);
  const now = deps.clock();
  if (now >= record.expiresAt)
    throw oauthError('invalid_grant', `The refresh token expired at ${iso(record.expiresAt)}; start again at the authorization endpoint.`);

  const requested = requestedScopes(request.scope);
  if (requested) {
    requireSubset(
      requested,
      record.grantScope,
      'originally granted',
      'A refresh may narrow the scope, never widen it (RFC 6749 6); leave scope out to get the original grant.',
    );
  }
  const granted = stillHeld(record.grantScope, client.scopes);
  if (requested) requireSubset(requested, granted, 'of this grant the app still holds', 'Ask for some of them, or leave scope out.');
  const scope = requested ? inOrderOf(requested, client.scopes) : granted;

  const grant = { issuer, client, sub: record.sub, scope, grantScope: record.grantScope, grantId: record.grantId };
  const next = newRefresh(deps, grant);
  if (!(await state.rotateRefresh(presented, record, { usedAt: now }, next))) await reusedRefresh(deps, state, record, now);
  return tokensFor(deps, grant, next.token);
}

async function reusedRefresh(deps: OAuth2Deps, state: GrantState, record: RefreshRecord, usedAt: number): Promise<never> {
  await state.revokeGrant(record.grantId, `a refresh token of it was presented again after being used at ${iso(usedAt)}`, lifetimesOf(deps));
  throw oauthError(
    'invalid_grant',
    `The refresh token was already used at ${iso(usedAt)}. Each refresh token works once (it rotates); presenting a used one means it may have leaked, so its whole grant is now revoked: every refresh token and access token issued from it (RFC 9700 4.14.2). Start again at the authorization endpoint.`,
  );
}

/** What one grant's tokens stand for. */
type IssuedGrant = { issuer: string; client: common.AppPrincipal; sub: string; scope: string[]; grantScope: string[]; grantId: string };

/** The refresh token a grant's answer will carry; saved together with the use of the code or token it replaces (GrantState). */
function newRefresh(deps: OAuth2Deps, grant: IssuedGrant): IssuedRefresh {
  const now = deps.clock();
  return {
    token: newRefreshToken(),
    record: {
      grantId: grant.grantId,
      clientId: grant.client.appId,
      sub: grant.sub,
      scope: grant.scope,
      grantScope: grant.grantScope,
      issuer: grant.issuer,
      issuedAt: now,
      expiresAt: now + deps.config.refreshTokenTtlSeconds * 1000,
    },
  };
}

/** The answer: a new access token (signed, nothing stored) beside the refresh token already saved. */
async function tokensFor(deps: OAuth2Deps, grant: IssuedGrant, refreshToken: string): Promise<oauth.TokenResponse> {
  const access = await issueAccessToken(deps, {
    issuer: grant.issuer,
    sub: grant.sub,
    clientId: grant.client.appId,
    scope: grant.scope,
    grantId: grant.grantId,
  });
  return { accessToken: access.token, tokenType: 'Bearer', expiresIn: deps.config.accessTokenTtlSeconds, refreshToken, scope: scopeString(grant.scope) };
}
