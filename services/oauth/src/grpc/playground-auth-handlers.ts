import type { oauth } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import type { OAuthDeps } from '../domain/deps';
import { digestChallenge, digestVerify, issueJwt, verifyHmac, verifyJwt } from '../domain/playground-auth';

type PlaygroundAuthMethods = 'issueJwt' | 'verifyJwt' | 'verifyHmac' | 'digestChallenge' | 'digestVerify';

/** The auth playground's JWT, HMAC and Digest checks: decode, call one domain function, encode. */
export function playgroundAuthHandlers(deps: OAuthDeps): Pick<UnaryImplementation<oauth.OAuthServiceServer>, PlaygroundAuthMethods> {
  const id = (requestId: string) => requestId || undefined;
  return {
    issueJwt: (request, ctx) => issueJwt(deps, request, id(ctx.requestId)),
    verifyJwt: (request, ctx) => verifyJwt(deps, request.token, id(ctx.requestId)),
    verifyHmac: async (request, ctx) => ({ check: await verifyHmac(deps, request, id(ctx.requestId)) }),
    digestChallenge: (request) => ({ wwwAuthenticate: digestChallenge(deps, request.realm) }),
    digestVerify: (request, ctx) => digestVerify(deps, request, id(ctx.requestId)),
  };
}
