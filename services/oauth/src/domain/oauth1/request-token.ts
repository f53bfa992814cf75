import type { oauth } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { oauth1Problem } from './errors';
import { checkSignedRequest } from './check';
import { newRequestToken, requestTokenSecret, secretKeyOf } from './credentials';
import type { OAuth1Deps } from './deps';
import { OAuth1State, REQUEST_TOKEN_LIFETIME_MS } from './state';

const CALLBACK_MAX = 2048;

/** RFC 5849 2.1: "oob" (case-sensitive), or an absolute URL the user agent can be sent to. */
export function isAcceptableCallback(callback: string): boolean {
  if (callback === 'oob') return true;
  if (callback.length > CALLBACK_MAX || !/^https?:\/\//i.test(callback)) return false;
  try {
    return new URL(callback).host !== '';
  } catch {
    return false;
  }
}

/**
 * Leg 1 (RFC 5849 2.1): a request signed with the consumer secret and an
 * empty token secret, naming where to send the user afterwards, gets a
 * temporary token and its secret, valid 10 minutes.
 */
export async function requestToken(deps: OAuth1Deps, request: oauth.SignedRequest | undefined, requestId?: string): Promise<oauth.OAuth1RequestTokenResponse> {
  const checked = await checkSignedRequest(
    deps,
    request,
    {
      required: ['oauth_callback'],
      validate(protocol) {
        const callback = protocol.get('oauth_callback')!;
        if (!isAcceptableCallback(callback)) {
          throw oauth1Problem(
            'parameter_rejected',
            `oauth_callback ${quoteInput(callback, { quotes: 'single' })} is neither 'oob' (out of band: the user reads the verifier off the page) nor an absolute http or https URL of at most ${CALLBACK_MAX} characters.`,
          );
        }
      },
      token: async () => ({ secret: '', words: 'an empty token secret (leg 1 has no token yet, so the key ends with the "&")', context: undefined }),
    },
    requestId,
  );
  const token = newRequestToken();
  const now = deps.clock();
  await new OAuth1State(deps.store, deps.clock).saveRequestToken(token, {
    app: checked.consumerKey,
    callback: checked.protocol.get('oauth_callback')!,
    issuedAt: now,
    expiresAt: now + REQUEST_TOKEN_LIFETIME_MS,
  });
  return { oauthToken: token, oauthTokenSecret: requestTokenSecret(secretKeyOf(deps.signingKey.privateKey), token), oauthCallbackConfirmed: true };
}
