import type { common, identity } from '@sandbox/contracts';
import type { PromiseClient } from '@sandbox/runtime';
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

type IdentityClient = Pick<PromiseClient<identity.IdentityServiceClient>, 'lookupApp' | 'getSigningKey' | 'verifyBasic'>;

interface Remembered<V> {
  value: Promise<V>;
  until: number;
}

/**
 * Identity's view of apps, remembered for at most `cacheMs` (<= 500 ms):
 * revoking or deleting an app, or rotating its API key, reaches every token
 * and signature oauth checks within a second (identity's own cache is at
 * most 500 ms too), while a burst of checks of one app costs one call.
 */
export class AppDirectory {
  private readonly apps = new Map<string, Remembered<DirectoryApp>>();
  private readonly keys = new Map<string, Remembered<AppSigningKey>>();

  constructor(
    private readonly identity: IdentityClient,
    private readonly clock: Clock,
    private readonly cacheMs = 500,
  ) {}

  /** The app whose App ID (client_id, consumer key) this is. */
  lookup(appId: string, requestId?: string): Promise<DirectoryApp> {
    return this.remember(this.apps, appId, () => this.identity.lookupApp({ appId }, { requestId }));
  }

  /** The app's API key, for checking a signature made with it. */
  signingKey(appId: string, requestId?: string): Promise<AppSigningKey> {
    return this.remember(this.keys, appId, () => this.identity.getSigningKey({ appId }, { requestId }));
  }

  /** Whether the App Secret is the app's (never remembered: a client secret is checked every time). */
  async verifySecret(appId: string, appSecret: string, requestId?: string): Promise<common.CredentialCheck | undefined> {
    return (await this.identity.verifyBasic({ appId, appSecret }, { requestId })).check;
  }

  private remember<V>(map: Map<string, Remembered<V>>, key: string, load: () => Promise<V>): Promise<V> {
    const now = this.clock();
    const hit = map.get(key);
    if (hit && hit.until > now) return hit.value;
    if (map.size > 10_000) map.clear(); // a burst of made-up ids must not grow memory without bound
    const value = load();
    const entry = { value, until: now + this.cacheMs };
    map.set(key, entry);
    value.catch(() => {
      if (map.get(key) === entry) map.delete(key);
    });
    return value;
  }
}
