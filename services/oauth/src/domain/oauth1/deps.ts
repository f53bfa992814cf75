import type { EphemeralStore } from '../../stores/ephemeral-store';
import type { AppDirectory } from '../app-directory';
import type { Clock } from '../clock';
import type { SigningKey } from '../signing-key';

/**
 * What the OAuth 1.0a rules need from the service (a subset of OAuthDeps, so a
 * unit test can pass a memory store, a clock it moves and a stand-in directory).
 */
export interface OAuth1Deps {
  clock: Clock;
  store: EphemeralStore;
  /** Consumer secrets (the apps' API keys) and app status, cached at most 500 ms. */
  apps: Pick<AppDirectory, 'lookup' | 'signingKey'>;
  /** The sandbox's key: token secrets, verifiers and access tokens are derived from it (credentials.ts). */
  signingKey: Pick<SigningKey, 'privateKey'>;
}
