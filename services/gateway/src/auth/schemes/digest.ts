import { challenges } from '@sandbox/contracts';
import { unauthenticated } from '@sandbox/runtime';
import type { BackendClients } from '../../clients';
import type { RouteContext } from '../../http/context';
import { verdictOf, type AuthScheme } from '../scheme';

export const DIGEST_REALM = challenges.REALM;

/** The username a Digest response names (the App ID), for the request log only: oauth checks everything. */
function digestUsername(header: string): string | undefined {
  return /(?:^|[\s,])username="([^"]*)"/i.exec(header)?.[1];
}

/**
 * HTTP Digest (RFC 7616): username App ID, password API key. The challenge
 * carries a fresh nonce, so it is asked of the oauth service each time it is
 * sent (SHA-256 first, then MD5). Never remembered: nonce counts must rise.
 */
export function digestScheme(clients: BackendClients): AuthScheme {
  /**
   * Fresh challenges, strongest first (curl --digest answers the first).
   * ?algorithm=SHA-256 (or MD5, …) keeps only that one, so a client that
   * answers the last challenge it reads (Python requests merges them) can
   * practise each algorithm.
   */
  const fresh = async (ctx: RouteContext) => {
    const all = (await clients.oauth.digestChallenge({ realm: DIGEST_REALM }, { requestId: ctx.requestId })).wwwAuthenticate;
    const wanted = ctx.query.get('algorithm');
    const chosen = wanted ? all.filter((line) => new RegExp(`[\\s,]algorithm="?${wanted.replace(/[^A-Za-z0-9-]/g, '')}"?(,|$)`, 'i').test(line)) : all;
    return chosen.length ? chosen : all;
  };
  return {
    name: 'digest',
    words: 'Authorization: Digest (RFC 7616) with username = App ID and password = API key, answering the challenge of a first request',
    cacheMs: 0,
    detect(ctx) {
      const header = ctx.headers.authorization ?? '';
      return /^Digest\s/i.test(header) ? { value: header, sure: true } : undefined;
    },
    async verify(authorization, ctx) {
      const username = digestUsername(authorization);
      if (username) ctx.logAs = { appId: username, style: 'digest' };
      const answer = await clients.oauth.digestVerify(
        { method: ctx.method, uri: ctx.asSent(ctx.request.url ?? ctx.path), authorization },
        { requestId: ctx.requestId },
      );
      // A stale nonce (RFC 7616 3.3): refused with the service's own fresh challenges, which say stale=true.
      if (!answer.check?.ok && answer.wwwAuthenticate.length) {
        throw unauthenticated('invalid_credentials', answer.check?.reason || 'The nonce has expired.').withChallenge(answer.wwwAuthenticate);
      }
      return verdictOf('digest', answer.check);
    },
    challenge: () => challenges.CHALLENGE.digest,
    freshChallenge: fresh,
  };
}
