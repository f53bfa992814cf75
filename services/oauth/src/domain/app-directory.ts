import type { common, identity } from '@sandbox/contracts';
import { ShortLivedCache, type PromiseClient } from '@sandbox/runtime';
import type { Clock } from './clock';

/** An app as oauth needs it: whether it exists and is active, who it is, and where it may redirect. */
export interface DirectoryApp {
  found: boolean;
  active: boolean;
  principal: common.AppPrincipal | undefined;
  redirectUris: string[];
}

/** The shared secret of the HMAC, Digest and OAuth 1.0a styles: the app's API key. */
export interface AppSigningKey {
  found: boolean;
  active: boolean;
  principal: common.AppPrincipal | undefined;
  apiKey: string;
}

/**
 * Whether a request may go through on this view of the app: false means the
 * caller would refuse it, so a remembered view is read again before it does.
 */
export type Accepts<V> = (view: V) => boolean;

/** The app exists and is active: what every use of an app needs, and all that some need. */
export const usable = (app: { found: boolean; active: boolean; principal: common.AppPrincipal | undefined }) =>
  app.found && app.active && app.principal !== undefined;

type IdentityClient = Pick<PromiseClient<identity.IdentityServiceClient>, 'lookupApp' | 'getSigningKey' | 'verifyBasic'>;

/**
 * Identity's view of apps, remembered for at most `cacheMs` (500 ms) so a
 * burst of checks of one app costs one call, and forgotten at once by
 * forget(), which the change feed calls on every change identity makes
 * (composition.ts). The lifetime is the backstop for a change the feed
 * lost; without a feed (no Redis: identity cannot reach this process)
 * nothing is remembered (cacheMs 0).
 *
 * Only a view that lets a request through is answered from memory: each
 * caller says what it needs of the app (`accepts`), and a remembered view
 * that fails it is read again from identity (which does not cache these
 * lookups) before the caller refuses on it. So a redirect URI, a scope or
 * an API key registered a moment ago works on its first use on every
 * replica. Each map holds at most 10,000 apps, so a burst of made-up ids
 * costs memory only up to that (expired first, then oldest, go).
 */
export class AppDirectory {
  private readonly apps: ShortLivedCache<DirectoryApp>;
  private readonly keys: ShortLivedCache<AppSigningKey>;

  constructor(
    private readonly identity: IdentityClient,
    clock: Clock,
    cacheMs = 500,
  ) {
    this.apps = new ShortLivedCache({ ttlMs: cacheMs, clock });
    this.keys = new ShortLivedCache({ ttlMs: cacheMs, clock });
  }

  /** The app whose App ID (client_id, consumer key) this is. */
  lookup(appId: string, requestId?: string, accepts: Accepts<DirectoryApp> = usable): Promise<DirectoryApp> {
    return this.apps.confirmed(appId, () => this.identity.lookupApp({ appId }, { requestId }), accepts);
  }

  /** The app's API key, for checking a signature made with it. */
  signingKey(appId: string, requestId?: string, accepts: Accepts<AppSigningKey> = usable): Promise<AppSigningKey> {
    return this.keys.confirmed(appId, () => this.identity.getSigningKey({ appId }, { requestId }), accepts);
  }

  /** Whether the App Secret is the app's (never remembered: a client secret is checked every time). */
  async verifySecret(appId: string, appSecret: string, requestId?: string): Promise<common.CredentialCheck | undefined> {
    return (await this.identity.verifyBasic({ appId, appSecret }, { requestId })).check;
  }

  /** Forgets every app: a change was made to one (the change feed says which kind, not which app). */
  forget(): void {
    this.apps.clear();
    this.keys.clear();
  }
}
