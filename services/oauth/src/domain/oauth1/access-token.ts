import type { oauth } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { epochSeconds } from '../clock';
import { oauth1Problem } from './errors';
import { checkSignedRequest } from './check';
import { ACCESS_TOKEN_PREFIX, newAccessToken, REQUEST_TOKEN_PATTERN, requestTokenSecret, secretKeyOf, verifierFor } from './credentials';
import type { OAuth1Deps } from './deps';
import { sameSecret } from './signature';
import { ACCESS_TOKEN_LIFETIME_SECONDS, OAuth1State, type RequestTokenRecord } from './state';

/**
 * Leg 3 (RFC 5849 2.3): a request signed with the consumer secret and the
 * temporary token's secret, carrying that token and the verifier of leg 2,
 * gets an access token and its secret (24 hours). The temporary token works
 * once: of two exchanges at once, at any replicas, exactly one succeeds. A
 * wrong verifier does not use it up (only its holder, who can sign, can try).
 */
export async function accessToken(deps: OAuth1Deps, request: oauth.SignedRequest | undefined, requestId?: string): Promise<oauth.OAuth1AccessTokenResponse> {
  const key = secretKeyOf(deps.signingKey.privateKey);
  const state = new OAuth1State(deps.store, deps.clock);
  const checked = await checkSignedRequest<RequestTokenRecord>(
    deps,
    request,
    {
      required: ['oauth_token', 'oauth_verifier'],
      async token(protocol, consumerKey) {
        const token = protocol.get('oauth_token')!;
        const rejected = (problem: 'token_rejected' | 'token_expired' | 'token_used', why: string) =>
          oauth1Problem(problem, `oauth_token ${quoteInput(token, { max: 20, quotes: 'single' })} ${why}`);
        if (!REQUEST_TOKEN_PATTERN.test(token)) {
          const already = token.startsWith(ACCESS_TOKEN_PREFIX) ? ' This is an access token: leg 3 is signed with the temporary token and its secret.' : '';
          throw rejected('token_rejected', `is not a temporary token this sandbox issued (they start with o1rt_).${already}`);
        }
        const [use, record] = await Promise.all([state.requestTokenUse(token), state.findRequestToken(token)]);
        // Read side by side, the two can straddle another request's exchange: no use yet, and the token already gone. Asked again, the use is there.
        const used = use ?? (record ? undefined : await state.requestTokenUse(token));
        if (used)
          throw rejected(
            'token_used',
            `was already exchanged for an access token at ${new Date(used.usedAt).toISOString()}: a temporary token works once; start again at leg 1.`,
          );
        if (!record)
          throw rejected('token_rejected', 'is unknown or expired: temporary tokens live 10 minutes; start again at leg 1 (POST /oauth1/request_token).');
        if (record.app !== consumerKey) throw rejected('token_rejected', 'was issued to another consumer key: legs 1 and 3 must use the same App ID.');
        if (record.expiresAt <= deps.clock())
          throw rejected('token_expired', `expired at ${new Date(record.expiresAt).toISOString()} (temporary tokens live 10 minutes): start again at leg 1.`);
        return { secret: requestTokenSecret(key, token), words: 'the temporary token secret from leg 1', context: record };
      },
    },
    requestId,
  );

  const token = checked.protocol.get('oauth_token')!;
  if (!sameSecret(checked.protocol.get('oauth_verifier')!, verifierFor(key, token))) {
    throw oauth1Problem(
      'verifier_invalid',
      `oauth_verifier is not the one GET /oauth1/authorize issued for oauth_token ${quoteInput(token, { max: 20, quotes: 'single' })}: use the oauth_verifier from the authorize answer (or the callback URL) of this same token.`,
    );
  }
  if (!(await state.claimRequestToken(token, checked.token.context, { usedAt: deps.clock() }))) {
    throw oauth1Problem(
      'token_used',
      `oauth_token ${quoteInput(token, { max: 20, quotes: 'single' })} was exchanged for an access token by another request a moment ago: a temporary token works once.`,
    );
  }
  const iat = epochSeconds(deps.clock);
  const issued = newAccessToken(key, { app: checked.consumerKey, iat, exp: iat + ACCESS_TOKEN_LIFETIME_SECONDS });
  return { oauthToken: issued.token, oauthTokenSecret: issued.secret };
}
