import type { oauth } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import type { OAuthDeps } from '../domain/deps';

type OAuth1Methods = 'oAuth1RequestToken' | 'oAuth1Authorize' | 'oAuth1AccessToken' | 'oAuth1Verify';

/** OAuth 1.0a: decode, call one domain function, encode. */
export function oauth1Handlers(_deps: OAuthDeps): Partial<Pick<UnaryImplementation<oauth.OAuthServiceServer>, OAuth1Methods>> {
  return {};
}
