import type { common, oauth } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import { isRefusal, oauth1Problem } from './errors';
import { checkSignedRequest } from './check';
import { accessTokenSecret, readAccessToken, REQUEST_TOKEN_PATTERN, secretKeyOf } from './credentials';
import type { OAuth1Deps } from './deps';

const THREE_LEGS = 'complete the three legs first: request_token, authorize, access_token; then sign with the access token and its secret';

/**
 * A protected request (RFC 5849 3.2), signed with the consumer secret and an
 * access token's secret. A refused credential is an answer, ok=false with
 * the rule in words and its oauth_problem value (the gateway answers 401); a
 * malformed request (a parameter absent or repeated, an unsupported method
 * or version) is an INVALID_ARGUMENT error, as at the three legs (400).
 */
export async function verify(deps: OAuth1Deps, request: oauth.SignedRequest | undefined, requestId?: string): Promise<common.CredentialCheck> {
  const key = secretKeyOf(deps.signingKey.privateKey);
  try {
    const checked = await checkSignedRequest(
      deps,
      request,
      {
        required: [],
        async token(protocol, consumerKey) {
          const token = protocol.get('oauth_token') ?? '';
          if (token === '') throw oauth1Problem('token_rejected', `The request carries no oauth_token: ${THREE_LEGS}.`);
          const rejected = (why: string) => oauth1Problem('token_rejected', `oauth_token ${quoteInput(token, { max: 20, quotes: 'single' })} ${why}`);
          if (REQUEST_TOKEN_PATTERN.test(token)) throw rejected(`is the temporary token of leg 1, not an access token: ${THREE_LEGS}.`);
          const read = readAccessToken(key, token);
          if (!read.ok) throw rejected(`is not an access token this sandbox issued: ${THREE_LEGS}.`);
          if (read.claims.app !== consumerKey) throw rejected('was issued to another consumer key: sign with the App ID that ran the three legs.');
          if (read.claims.exp * 1000 <= deps.clock()) {
            throw oauth1Problem(
              'token_expired',
              `The access token expired at ${new Date(read.claims.exp * 1000).toISOString()} (they live 24 hours): run the three legs again.`,
            );
          }
          return { secret: accessTokenSecret(key, token), words: 'the access token secret from leg 3', context: undefined };
        },
      },
      requestId,
    );
    return { ok: true, reason: '', principal: checked.principal };
  } catch (error) {
    if (isRefusal(error)) return { ok: false, reason: `oauth_problem=${error.code}: ${error.message}`, principal: undefined };
    throw error;
  }
}
