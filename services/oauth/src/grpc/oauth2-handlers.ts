import type { oauth } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import type { OAuthDeps } from '../domain/deps';

type OAuth2Methods = 'authorize' | 'token' | 'introspect' | 'revoke' | 'verifyAccessToken' | 'getJwtPublicKey';

/** OAuth 2.0: decode, call one domain function, encode. */
export function oauth2Handlers(_deps: OAuthDeps): Partial<Pick<UnaryImplementation<oauth.OAuthServiceServer>, OAuth2Methods>> {
  return {};
}
