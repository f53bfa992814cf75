import type { common } from '@sandbox/contracts';
import { ShortLivedCache, unauthenticated } from '@sandbox/runtime';
import type { AppRecord, AppStore } from '../stores/app-store';
import { CredentialCrypto, digestsEqual } from './credential-crypto';
import { PATTERN } from './credentials';

/** The one principal type, owned by the proto (sandbox.common.v1). */
export type Principal = common.AppPrincipal;

/** A refusal is an answer, not an error: callers (and their caches) treat both alike. */
export type CredentialCheck = common.CredentialCheck;

export interface AppLookup {
  found: boolean;
  active: boolean;
  principal: Principal | undefined;
  redirectUris: string[];
}

export interface SigningKey {
  found: boolean;
  active: boolean;
  principal: Principal | undefined;
  apiKey: string;
}

const principalOf = (app: AppRecord): Principal => ({ id: app.id, appId: app.appId, ownerId: app.ownerId, scopes: [...app.scopes] });
const refuse = (reason: string): CredentialCheck => ({ ok: false, reason, principal: undefined });
const REVOKED = 'The app is revoked; its credentials no longer work.';
const OWNER_DISABLED = "The app's owner account has been disabled by an operator; its credentials work again only if the account is enabled.";
/** Whether the app's credentials work: it is active and its owner is not disabled. */
const usable = (app: AppRecord) => app.status === 'active' && !app.ownerDisabled;

/**
 * The credential checks on the hot path. Apps are cached by the hash of the
 * credential (never the credential itself) for at most the cache's TTL (500 ms
 * by default), and dropped at once on every change: this replica's own, and
 * every other replica's through the change feed (composition.ts). Only an
 * acceptance is answered from memory: a remembered answer that would refuse
 * is read again from the store first, so a credential made or restored a
 * moment ago (on any replica) is accepted on its first use.
 *
 * The oauth service's lookups (LookupApp, GetSigningKey) are not cached here:
 * oauth remembers them itself and asks again, past its own memory, before it
 * refuses on them, and that second ask must reach the store.
 */
export class CredentialVerifier {
  private readonly cache: ShortLivedCache<AppRecord | null>;

  constructor(
    private readonly apps: AppStore,
    private readonly crypto: CredentialCrypto,
    cacheTtlMs: number,
    clock: () => number = Date.now,
  ) {
    this.cache = new ShortLivedCache({ ttlMs: cacheTtlMs, clock });
  }

  /** Forgets every cached answer; called on every change to an app or its owner, on any replica. */
  invalidate(): void {
    this.cache.clear();
  }

  async verifyApiKey(apiKey: string): Promise<CredentialCheck> {
    if (apiKey === '') return refuse('No API key was given.');
    if (!PATTERN.apiKey.test(apiKey)) return refuse('The API key is not in the expected format (ak_ followed by 43 characters).');
    const lookup = this.crypto.lookup(apiKey);
    return this.confirmed(
      `ak:${lookup}`,
      async () => (await this.apps.findByApiKeyLookup(lookup)) ?? null,
      (app) => (!app || !digestsEqual(app.credentials.apiKey.lookup, lookup) ? refuse('The API key is not valid.') : this.answer(app)),
    );
  }

  async verifyBearerToken(token: string): Promise<CredentialCheck> {
    if (token === '') return refuse('No bearer token was given.');
    if (!PATTERN.bearerToken.test(token)) return refuse('The bearer token is not an app bearer token (bt_ followed by 43 characters).');
    const hash = CredentialCrypto.hash(token);
    return this.confirmed(
      `bt:${hash}`,
      async () => (await this.apps.findByBearerHash(hash)) ?? null,
      (app) => (!app || !digestsEqual(app.credentials.bearerToken.hash, hash) ? refuse('The bearer token is not valid.') : this.answer(app)),
    );
  }

  async verifyBasic(appId: string, appSecret: string): Promise<CredentialCheck> {
    if (appId === '' || appSecret === '') return refuse('Both the App ID and the App Secret are required.');
    const invalid = 'The App ID or App Secret is not valid.';
    if (!PATTERN.appId.test(appId) || !PATTERN.appSecret.test(appSecret)) return refuse(invalid);
    const hash = CredentialCrypto.hash(appSecret);
    return this.confirmed(
      `id:${appId}`,
      async () => (await this.apps.findByAppId(appId)) ?? null,
      (app) => {
        // Compared in constant time even when the App ID is unknown.
        const matches = digestsEqual(app?.credentials.appSecret.hash ?? CredentialCrypto.hash(''), hash);
        return !app || !matches ? refuse(invalid) : this.answer(app);
      },
    );
  }

  async lookupApp(appId: string): Promise<AppLookup> {
    const app = PATTERN.appId.test(appId) ? await this.apps.findByAppId(appId) : undefined;
    if (!app) return { found: false, active: false, principal: undefined, redirectUris: [] };
    return { found: true, active: usable(app), principal: principalOf(app), redirectUris: [...app.redirectUris] };
  }

  /** The plain API key, for the oauth service's HMAC, Digest and OAuth 1.0a checks; never for a revoked app. */
  async getSigningKey(appId: string): Promise<SigningKey> {
    const app = PATTERN.appId.test(appId) ? await this.apps.findByAppId(appId) : undefined;
    if (!app) return { found: false, active: false, principal: undefined, apiKey: '' };
    if (!usable(app)) return { found: true, active: false, principal: principalOf(app), apiKey: '' };
    let apiKey: string;
    try {
      apiKey = this.crypto.decrypt(app.credentials.apiKey.sealed, app.id);
    } catch {
      // The ciphertext does not open with this CREDENTIAL_ENCRYPTION_KEY: data restored (or copied) under
      // another key. A refusal the learner can act on (a new API key is sealed with the current key), not
      // an internal error; nothing about the key or the ciphertext is in it.
      throw unauthenticated(
        'api_key_unreadable',
        'This app\'s API key was stored under a different server key and cannot be read here, so it cannot check HMAC, Digest, OAuth 1.0a or HS256 signatures. Rotate the API key in the portal (POST /api/apps/{id}/rotate with {"apiKey": true}) to get one that works.',
      );
    }
    return { found: true, active: true, principal: principalOf(app), apiKey };
  }

  /**
   * The check on the app as remembered; a refusal from memory is checked
   * again on the app read afresh (concurrent confirmations of one key share
   * the read), and that answer stands.
   */
  private async confirmed(key: string, load: () => Promise<AppRecord | null>, check: (app: AppRecord | null) => CredentialCheck): Promise<CredentialCheck> {
    // The check is a digest comparison, cheap enough to run again on the answer that stands.
    return check(await this.cache.confirmed(key, load, (app) => check(app).ok));
  }

  private answer(app: AppRecord): CredentialCheck {
    if (app.status !== 'active') return refuse(REVOKED);
    if (app.ownerDisabled) return refuse(OWNER_DISABLED);
    return { ok: true, reason: '', principal: principalOf(app) };
  }
}
