import type { oauth } from '@sandbox/contracts';
import { AppError, quoteInput } from '@sandbox/runtime';
import { usable, type DirectoryApp } from '../app-directory';
import type { OAuth2Deps } from './deps';
import { oauthError, type OAuth2ErrorCode } from './errors';
import { challengeProblem } from './pkce';
import { differenceFromNearest } from './redirect-uri';
import { inOrderOf, requestedScopes, requireSubset } from './scope';
import { CODE_LIFETIME_MS, GrantState } from './grant-state';
import { requireIssuer } from './issuer';
import { newAuthorizationCode } from './secrets';

interface Redirectable {
  error: Exclude<OAuth2ErrorCode, 'invalid_client'>;
  description: string;
}

/** Thrown inside authorize once the redirect URI is trusted: answered by redirecting (RFC 6749 4.1.2.1). */
class RedirectedRefusal extends Error {
  constructor(readonly refusal: Redirectable) {
    super(refusal.description);
  }
}
const redirected = (error: Redirectable['error'], description: string) => new RedirectedRefusal({ error, description });

/**
 * The authorization endpoint (RFC 6749 4.1.1), approved at once: there is no
 * consent screen in the sandbox, the app's owner is taken to approve.
 *
 * Until the client and the redirect URI are known to be right, nothing
 * redirects: an unknown client_id, a redirect_uri not registered for the app
 * (exact string match) or a revoked app is an error the gateway shows as 400
 * (RFC 6749 4.1.2.1 forbids redirecting to an unverified URI). Every later
 * refusal redirects there with error, error_description, state and iss.
 */
export async function authorize(deps: OAuth2Deps, request: oauth.AuthorizeRequest, requestId?: string): Promise<oauth.AuthorizeResponse> {
  const issuer = requireIssuer(request.issuer);
  const repeated = new Set(request.repeated);
  const present = new Set(request.present);

  if (repeated.has('client_id')) throw oauthError('invalid_request', 'client_id was sent more than once; send it once (RFC 6749 3.1).');
  if (!request.clientId) throw oauthError('invalid_request', 'client_id is required: send the App ID of your app.');
  const app = await deps.apps.lookup(request.clientId, requestId, (view) => admits(view, request));
  if (!app.found || !app.principal) {
    throw oauthError(
      'invalid_request',
      `client_id ${quoteInput(request.clientId, { quotes: 'single' })} is not the App ID of any app here; copy the App ID from the portal.`,
    );
  }
  if (!app.active) throw oauthError('unauthorized_client', 'The app is revoked, so it cannot ask for authorization any more; create a new app.');
  if (repeated.has('redirect_uri')) throw oauthError('invalid_request', 'redirect_uri was sent more than once; send it once (RFC 6749 3.1).');
  const registered = app.redirectUris;
  const redirectUriSent = request.redirectUri !== '';
  let redirectUri = request.redirectUri;
  if (!redirectUriSent) {
    // RFC 6749 3.1.2.3: optional only when exactly one URI is registered.
    if (registered.length !== 1) {
      throw oauthError(
        'invalid_request',
        registered.length === 0
          ? 'The app has no registered redirect URI: register one (PUT /api/apps/{id}/redirect-uris), then send it as redirect_uri.'
          : `redirect_uri is required: the app has ${registered.length} registered, so say which one.`,
      );
    }
    redirectUri = registered[0];
  } else if (!registered.includes(redirectUri)) {
    throw oauthError(
      'invalid_request',
      registered.length === 0
        ? `redirect_uri ${quoteInput(redirectUri, { quotes: 'single' })} is not registered: the app has no registered redirect URI; register the exact URI first (PUT /api/apps/{id}/redirect-uris).`
        : `redirect_uri ${quoteInput(redirectUri, { quotes: 'single' })} is not registered for this app (${registered.length} registered; the match is exact, character for character). ${differenceFromNearest(redirectUri, registered)}`,
    );
  }

  const state = request.state !== '' || present.has('state') ? request.state : undefined;
  const send = (params: Record<string, string | undefined>) => ({ location: withQuery(redirectUri, { ...params, state, iss: issuer }) });
  try {
    const grant = checkRequest(request, repeated, app.principal.scopes);
    const code = newAuthorizationCode();
    const now = deps.clock();
    await new GrantState(deps.store, deps.clock).saveCode(code, {
      clientId: app.principal.appId,
      redirectUri,
      redirectUriSent,
      scope: grant.scope,
      challenge: grant.challenge,
      issuedAt: now,
      expiresAt: now + CODE_LIFETIME_MS,
    });
    return send({ code });
  } catch (error) {
    if (error instanceof RedirectedRefusal) return send({ error: error.refusal.error, error_description: error.refusal.description });
    throw error;
  }
}

/**
 * Whether this view of the app lets the request past every check that
 * depends on the app: it is there and active, the redirect URI is
 * registered, the scopes asked for are held. The directory reads a
 * remembered view that does not again before any of them refuses.
 */
function admits(app: DirectoryApp, request: oauth.AuthorizeRequest): boolean {
  if (!usable(app)) return false;
  const registered = app.redirectUris;
  if (request.redirectUri === '' ? registered.length !== 1 : !registered.includes(request.redirectUri)) return false;
  let requested: string[] | undefined;
  try {
    requested = requestedScopes(request.scope);
  } catch {
    return true; // malformed whatever the app holds
  }
  return !requested || requested.every((scope) => app.principal!.scopes.includes(scope));
}

const ONCE = ['response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method'];

/** The checks whose refusals redirect; the scope and challenge the code will carry. */
function checkRequest(request: oauth.AuthorizeRequest, repeated: Set<string>, appScopes: string[]): { scope: string[]; challenge: string } {
  const twice = ONCE.filter((name) => repeated.has(name));
  if (twice.length)
    throw redirected(
      'invalid_request',
      `${twice.join(', ')} ${twice.length === 1 ? 'was' : 'were'} sent more than once; send each parameter once (RFC 6749 3.1).`,
    );

  if (request.responseType === '') throw redirected('invalid_request', 'response_type is required: send response_type=code.');
  if (request.responseType !== 'code') {
    throw redirected(
      'unsupported_response_type',
      `response_type ${quoteInput(request.responseType, { quotes: 'single' })} is not supported: this server offers the authorization code flow only (response_type=code).`,
    );
  }

  const challenge = request.codeChallenge;
  const method = request.codeChallengeMethod;
  if (challenge === '' && method !== '') throw redirected('invalid_request', 'code_challenge_method was sent without a code_challenge; send both, or neither.');
  if (challenge !== '') {
    if (method === '') {
      throw redirected(
        'invalid_request',
        'code_challenge_method is missing, and without it RFC 7636 4.3 means plain, which this server does not accept: send code_challenge_method=S256.',
      );
    }
    if (method === 'plain')
      throw redirected('invalid_request', 'code_challenge_method plain is not accepted (it protects nothing if the request is seen): use S256.');
    if (method !== 'S256') throw redirected('invalid_request', `code_challenge_method ${quoteInput(method, { quotes: 'single' })} is not supported: use S256.`);
    const problem = challengeProblem(challenge);
    if (problem) throw redirected('invalid_request', problem);
  }

  let scope = appScopes;
  try {
    const requested = requestedScopes(request.scope);
    if (requested) {
      requireSubset(requested, appScopes, 'the app holds', 'Ask for some of them, or leave scope out to get all.');
      scope = inOrderOf(requested, appScopes);
    }
  } catch (error) {
    if (error instanceof AppError && error.code === 'invalid_scope') throw redirected('invalid_scope', error.message);
    throw error;
  }
  return { scope, challenge };
}

/** The redirect URI with parameters added to its query, which is kept as registered (RFC 6749 3.1.2). */
function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  const joiner = !uri.includes('?') ? '?' : uri.endsWith('?') || uri.endsWith('&') ? '' : '&';
  return uri + joiner + query.toString();
}
