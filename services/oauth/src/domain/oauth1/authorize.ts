import type { oauth } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { percentEncode } from './encoding';
import { oauth1Problem } from './errors';
import { REQUEST_TOKEN_PATTERN, secretKeyOf, verifierFor } from './credentials';
import type { OAuth1Deps } from './deps';
import { OAuth1State } from './state';

/** The callback with oauth_token and oauth_verifier added to its query (RFC 5849 2.2), its own query and fragment kept as they were. */
export function callbackWith(callback: string, token: string, verifier: string): string {
  const hash = callback.indexOf('#');
  const [base, fragment] = hash < 0 ? [callback, ''] : [callback.slice(0, hash), callback.slice(hash)];
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}oauth_token=${percentEncode(token)}&oauth_verifier=${percentEncode(verifier)}${fragment}`;
}

/**
 * Leg 2 (RFC 5849 2.2), the resource owner's step in a browser: approved at
 * once, no signature. The verifier is derived from the token, so it is bound
 * to it, the same however often this is asked, and nothing is written.
 * Every refusal is token_rejected; its message says which rule failed.
 */
export async function authorize(deps: OAuth1Deps, oauthToken: string, requestId?: string): Promise<oauth.OAuth1AuthorizeResponse> {
  if (oauthToken === '') {
    throw oauth1Problem(
      'parameter_absent',
      'Missing oauth_token (oauth_parameters_absent=oauth_token): send the temporary token from POST /oauth1/request_token as the query parameter oauth_token.',
    );
  }
  const rejected = (why: string) => oauth1Problem('token_rejected', `oauth_token ${quoteInput(oauthToken, { max: 20, quotes: 'single' })} ${why}`);
  if (!REQUEST_TOKEN_PATTERN.test(oauthToken)) {
    throw rejected('is not a temporary token this sandbox issued: use the oauth_token that POST /oauth1/request_token answered (it starts with o1rt_).');
  }
  const state = new OAuth1State(deps.store, deps.clock);
  const [use, record] = await Promise.all([state.requestTokenUse(oauthToken), state.findRequestToken(oauthToken)]);
  if (use) throw rejected(`was already exchanged for an access token at ${new Date(use.usedAt).toISOString()}: it works once; start again at leg 1.`);
  if (!record) throw rejected('is unknown or expired: temporary tokens live 10 minutes; start again at leg 1 (POST /oauth1/request_token).');
  if (record.expiresAt <= deps.clock())
    throw rejected(`expired at ${new Date(record.expiresAt).toISOString()} (temporary tokens live 10 minutes): start again at leg 1.`);
  const app = await deps.apps.lookup(record.app, requestId);
  if (!app.found) throw rejected('belongs to an app that has been deleted.');
  if (!app.active) throw rejected('belongs to an app that is revoked: its credentials and tokens no longer work.');

  const verifier = verifierFor(secretKeyOf(deps.signingKey.privateKey), oauthToken);
  return { oauthToken, oauthVerifier: verifier, callback: record.callback === 'oob' ? '' : callbackWith(record.callback, oauthToken, verifier) };
}
