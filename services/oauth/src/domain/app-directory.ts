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

/**
 * Whether a request may go through on this view of the app: false means the
 * caller would refuse it, so a remembered view is read again before it does.
 */
export type Accepts<V> = (view: V) => boolean;

/** The app exists and is active: what every use of an app needs, and all that some need. */
export const usable = (app: { found: boolean; active: boolean; principal: common.AppPrincipal | undefined }) => app.found && app.active && app.principal !== undefined;

type IdentityClient = Pick<PromiseClient<identity.IdentityServiceClient>, 'lookupApp' | 'getSigningKey' | 'verifyBasic'>;

interface Remembered<V> {
  value: Promise<V>;
  until: number;
  /** Set once the answer is in: from then on it is remembered, not being read. */
  settled: boolean;
}

/** Entries per map before all are forgotten: a burst of made-up ids must not grow memory without bound. */
const MAX_ENTRIES = 10_000;

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
 * replica.
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
  lookup(appId: string, requestId?: string, accepts: Accepts<DirectoryApp> = usable): Promise<DirectoryApp> {
    return this.read(this.apps, appId, () => this.identity.lookupApp({ appId }, { requestId }), accepts);
  }

  /** The app's API key, for checking a signature made with it. */
  signingKey(appId: string, requestId?: string, accepts: Accepts<AppSigningKey> = usable): Promise<AppSigningKey> {
    return this.read(this.keys, appId, () => this.identity.getSigningKey({ appId }, { requestId }), accepts);
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

  private async read<V>(map: Map<string, Remembered<V>>, key: string, load: () => Promise<V>, accepts: Accepts<V>): Promise<V> {
    const hit = map.get(key);
    if (!hit || hit.until <= this.clock()) return this.load(map, key, load);
    // A view still being read was asked for after this request's change was heard of: fresh enough to refuse on.
    const wasRemembered = hit.settled;
    const value = await hit.value;
    if (!wasRemembered || accepts(value)) return value;
    const current = map.get(key);
    // Another caller may already be reading it again: share that read.
    if (current && current !== hit && !current.settled) return current.value;
    return this.load(map, key, load);
  }

  private load<V>(map: Map<string, Remembered<V>>, key: string, load: () => Promise<V>): Promise<V> {
    const value = load();
    if (this.cacheMs <= 0) return value;
    if (map.size >= MAX_ENTRIES) map.clear();
    const entry: Remembered<V> = { value, until: this.clock() + this.cacheMs, settled: false };
    map.set(key, entry);
    value.then(
      () => (entry.settled = true),
      () => {
        if (map.get(key) === entry) map.delete(key);
      },
    );
    return value;
  }
}
