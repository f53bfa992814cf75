import type { oauth } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import type { OAuthDeps } from '../domain/deps';

type PlaygroundAuthMethods = 'issueJwt' | 'verifyJwt' | 'verifyHmac' | 'digestChallenge' | 'digestVerify';

/** The auth playground's JWT, HMAC and Digest checks: decode, call one domain function, encode. */
export function playgroundAuthHandlers(_deps: OAuthDeps): Partial<Pick<UnaryImplementation<oauth.OAuthServiceServer>, PlaygroundAuthMethods>> {
  return {};
}
