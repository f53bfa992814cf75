import type { oauth } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import type { OAuthDeps } from '../domain/deps';
import { accessToken, authorize, requestToken, verify } from '../domain/oauth1';

type OAuth1Methods = 'oAuth1RequestToken' | 'oAuth1Authorize' | 'oAuth1AccessToken' | 'oAuth1Verify';

/** OAuth 1.0a: decode, call one domain function, encode. */
export function oauth1Handlers(deps: OAuthDeps): Pick<UnaryImplementation<oauth.OAuthServiceServer>, OAuth1Methods> {
  const id = (requestId: string) => requestId || undefined;
  return {
    oAuth1RequestToken: (request, ctx) => requestToken(deps, request.request, id(ctx.requestId)),
    oAuth1Authorize: (request, ctx) => authorize(deps, request.oauthToken, id(ctx.requestId)),
    oAuth1AccessToken: (request, ctx) => accessToken(deps, request.request, id(ctx.requestId)),
    oAuth1Verify: async (request, ctx) => ({ check: await verify(deps, request.request, id(ctx.requestId)) }),
  };
}
