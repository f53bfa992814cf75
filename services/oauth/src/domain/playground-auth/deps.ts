import type { EphemeralStore } from '../../stores/ephemeral-store';
import type { AppDirectory } from '../app-directory';
import type { Clock } from '../clock';
import type { SigningKey } from '../signing-key';

/**
 * What the playground's JWT, HMAC and Digest checks need from the service (a
 * subset of OAuthDeps, so a unit test can pass a memory store, a clock it
 * moves and a stand-in directory).
 */
export interface PlaygroundAuthDeps {
  clock: Clock;
  /** HMAC replay memory and Digest nonce counts. */
  store: EphemeralStore;
  apps: Pick<AppDirectory, 'lookup' | 'signingKey'>;
  /** The sandbox's one RS256 key: signs and checks RS256 JWTs, and (through HKDF) keys Digest nonces. */
  signingKey: Pick<SigningKey, 'privateKey' | 'publicKey' | 'kid' | 'publicPem'>;
}
