import { challenges } from '@sandbox/contracts';
import { unauthenticated } from '@sandbox/runtime';
import type { BackendClients } from '../../clients';
import { verdictOf, type AuthScheme } from '../scheme';
import { consumerKeyOf, signedRequestOf } from '../signed-request';

const OAUTH1_CHALLENGE = challenges.CHALLENGE.oauth1;

/**
 * A request signed with an OAuth 1.0a access token (after the three legs),
 * in the Authorization header or the query. Never remembered: each signature
 * carries a nonce that may be used once.
 */
export function oauth1SignatureScheme(clients: BackendClients): AuthScheme {
  return {
    name: 'oauth1',
    words: 'an OAuth 1.0a signature (Authorization: OAuth …) made with the access token from POST /oauth1/access_token',
    cacheMs: 0,
    detect(ctx) {
      if (/^OAuth\s/i.test(ctx.headers.authorization ?? '')) return { value: 'header', sure: true };
      return ctx.rawQuery.includes('oauth_signature') ? { value: 'query', sure: true } : undefined;
    },
    async verify(_where, ctx) {
      // The third leg's use: a request signed with the access token (docs/exercises.md), refused or not.
      ctx.fact('oauth1_step', 'resource');
      const consumerKey = consumerKeyOf(ctx);
      if (consumerKey) ctx.logAs = { appId: consumerKey, style: 'oauth1' };
      const { check } = await clients.oauth.oAuth1Verify({ request: signedRequestOf(ctx) }, ctx.call());
      // A refusal names RFC 5849's problem ("oauth_problem=nonce_used: …"): it becomes the refusal's code, as at the three legs.
      const problem = check && !check.ok ? /^oauth_problem=([a-z_]+): ([\s\S]*)$/.exec(check.reason) : null;
      if (problem) throw unauthenticated(problem[1], problem[2]).withChallenge(`${OAUTH1_CHALLENGE}, oauth_problem="${problem[1]}"`);
      return verdictOf('oauth1', check);
    },
    challenge: () => OAUTH1_CHALLENGE,
  };
}
