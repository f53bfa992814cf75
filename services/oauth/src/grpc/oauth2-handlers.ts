import type { oauth } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import type { OAuthDeps } from '../domain/deps';
import { authorize, introspect, revoke, token, verifyAccessToken } from '../domain/oauth2';

type OAuth2Methods = 'authorize' | 'token' | 'introspect' | 'revoke' | 'verifyAccessToken' | 'getJwtPublicKey';

/** OAuth 2.0: decode, call one domain function, encode. */
export function oauth2Handlers(deps: OAuthDeps): Pick<UnaryImplementation<oauth.OAuthServiceServer>, OAuth2Methods> {
  const id = (requestId: string) => requestId || undefined;
  return {
    authorize: (request, ctx) => authorize(deps, request, id(ctx.requestId)),
    token: (request, ctx) => token(deps, request, id(ctx.requestId)),
    introspect: (request, ctx) => introspect(deps, request, id(ctx.requestId)),
    revoke: async (request, ctx) => {
      await revoke(deps, request, id(ctx.requestId));
      return {};
    },
    verifyAccessToken: async (request, ctx) => ({ check: await verifyAccessToken(deps, request.token, id(ctx.requestId)) }),
    getJwtPublicKey: () => ({
      pem: deps.signingKey.publicPem,
      kid: deps.signingKey.kid,
      jwkJson: JSON.stringify(deps.signingKey.publicJwk),
      jwksJson: JSON.stringify(deps.signingKey.accessTokens.jwks),
    }),
  };
}
