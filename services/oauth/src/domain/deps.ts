import type { ChangeFeed, Logger } from '@sandbox/runtime';
import type { OAuthConfig } from '../config';
import type { EphemeralStore } from '../stores/ephemeral-store';
import type { AppDirectory } from './app-directory';
import type { Clock } from './clock';
import type { SigningKey } from './signing-key';

/** What the oauth service's parts are built from (composition.ts builds it once). */
export interface OAuthDeps {
  config: OAuthConfig;
  logger: Logger;
  clock: Clock;
  /** Codes, tokens, nonces, revocations: Redis in cluster mode, memory in the embedded default. */
  store: EphemeralStore;
  apps: AppDirectory;
  signingKey: SigningKey;
  /** Tells every replica's caches of a change (here: a revoked token or grant). */
  changes: ChangeFeed;
}
