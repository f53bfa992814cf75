import { randomBytes } from 'node:crypto';
import type { common } from '@sandbox/contracts';
import type { AppSigningKey, DirectoryApp } from '../../src/domain/app-directory';
import type { Clock } from '../../src/domain/clock';
import { MemoryEphemeralStore } from '../../src/stores/memory-ephemeral-store';

/** One app as the stand-in directory holds it; a test edits it (revoke, change scopes) and the next lookup sees that. */
export interface StandInApp {
  active: boolean;
  /** The shared secret of HMAC, Digest, HS256 JWTs and OAuth 1.0a (the consumer secret). */
  apiKey: string;
  /** The OAuth 2.0 client secret. */
  secret: string;
  principal: common.AppPrincipal;
  redirectUris: string[];
}

/**
 * A stand-in for identity's view of apps (the directory's lookup, signingKey
 * and verifySecret), held in a map the test edits: the integration tests use
 * the real one. It answers as identity does: a revoked app's API key is
 * withheld, and every answer is a copy.
 */
export class StandInApps {
  readonly apps = new Map<string, StandInApp>();

  /** What `add` gives an app unless told otherwise. */
  constructor(private readonly defaults: { scopes?: string[]; redirectUris?: string[] } = {}) {}

  /** A new active app, random unless told: App ID, API key, App Secret, principal. */
  add(options: { appId?: string; apiKey?: string; scopes?: string[]; redirectUris?: string[] } = {}) {
    const appId = options.appId ?? `app_${randomBytes(16).toString('base64url').slice(0, 22)}`;
    const app: StandInApp = {
      active: true,
      apiKey: options.apiKey ?? `ak_${randomBytes(32).toString('base64url')}`,
      secret: `as_${randomBytes(32).toString('base64url')}`,
      principal: {
        id: randomBytes(12).toString('hex'),
        appId,
        ownerId: randomBytes(12).toString('hex'),
        scopes: options.scopes ?? this.defaults.scopes ?? ['hr:read'],
      },
      redirectUris: options.redirectUris ?? this.defaults.redirectUris ?? [],
    };
    this.apps.set(appId, app);
    return { appId, apiKey: app.apiKey, secret: app.secret, principal: app.principal, app };
  }

  async lookup(appId: string): Promise<DirectoryApp> {
    const app = this.apps.get(appId);
    if (!app) return { found: false, active: false, principal: undefined, redirectUris: [] };
    return { found: true, active: app.active, principal: { ...app.principal }, redirectUris: [...app.redirectUris] };
  }

  async signingKey(appId: string): Promise<AppSigningKey> {
    const app = this.apps.get(appId);
    if (!app) return { found: false, active: false, principal: undefined, apiKey: '' };
    return { found: true, active: app.active, principal: { ...app.principal }, apiKey: app.active ? app.apiKey : '' };
  }

  async verifySecret(appId: string, appSecret: string): Promise<common.CredentialCheck> {
    const app = this.apps.get(appId);
    if (!app || app.secret !== appSecret) return { ok: false, reason: 'The App ID or App Secret is not valid.', principal: undefined };
    if (!app.active) return { ok: false, reason: 'The app is revoked; its credentials no longer work.', principal: undefined };
    return { ok: true, reason: '', principal: { ...app.principal } };
  }
}

/**
 * The rules' dependencies as a unit test gives them: the test's clock, a
 * memory store on that same clock (so moving it expires what is stored), the
 * stand-in directory and a signing key. The test closes the store.
 */
export function memoryDeps<Apps, Key>(clock: Clock, apps: Apps, signingKey: Key): { clock: Clock; store: MemoryEphemeralStore; apps: Apps; signingKey: Key } {
  return { clock, store: new MemoryEphemeralStore({ now: clock }), apps, signingKey };
}
