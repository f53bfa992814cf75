import type { ChangeFeed } from '@sandbox/runtime';
import type { OAuthConfig } from '../../config';
import type { EphemeralStore } from '../../stores/ephemeral-store';
import type { AppDirectory } from '../app-directory';
import type { Clock } from '../clock';
import type { SigningKey } from '../signing-key';

/**
 * What the OAuth 2.0 rules need from the service (a subset of OAuthDeps, so a
 * unit test can pass a memory store, a clock it moves and a stand-in directory).
 */
export interface OAuth2Deps {
  config: Pick<OAuthConfig, 'accessTokenTtlSeconds' | 'refreshTokenTtlSeconds'>;
  clock: Clock;
  store: EphemeralStore;
  apps: Pick<AppDirectory, 'lookup' | 'verifySecret'>;
  signingKey: Pick<SigningKey, 'privateKey' | 'publicKey' | 'kid' | 'accessTokens'>;
  /** Told of every revocation (absent in unit tests: nothing to tell). */
  changes?: Pick<ChangeFeed, 'publish'>;
}
