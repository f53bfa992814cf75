import { failedPrecondition, invalidArgument, notFound, resourceExhausted, ShortLivedCache } from '@sandbox/runtime';
import type { AppRecord, AppStore, StoredCredentials } from '../stores/app-store';
import { DuplicateKeyError } from '../stores/errors';
import { AppLeftovers, type AppLeftoverStores } from './app-leftovers';
import { CredentialCrypto } from './credential-crypto';
import { hintOf, newAppId, newResourceId, newSecret, SECRET_KINDS, type SecretKind } from './credentials';
import { LIMITS, PACK_SCOPES } from './limits';
import { appDescription, appName, isAppResourceId, redirectUriList, scopeList } from './validation';

/** Plain credential values, present only in the answer that created them. */
export type IssuedCredentials = Partial<Record<SecretKind, string>>;

export interface CreateAppInput {
  name: string;
  description: string;
  /** Absent: every pack scope. */
  scopes?: readonly string[];
  redirectUris: readonly string[];
}

/** The app store, and the stores of what a deleted app leaves behind (app-leftovers.ts). */
export interface AppDeps extends AppLeftoverStores {
  crypto: CredentialCrypto;
  /** Called after every change, creation included, so cached answers (credentials, app lists) are dropped at once on every replica (awaited: the answer leaves after). */
  onChange: () => unknown;
  /** How long an owner's app list is remembered (VERIFICATION_CACHE_MS); 0 or absent reads the store every time. */
  listCacheMs?: number;
  now?: () => Date;
}

/** Which credentials to rotate; every one left out (undefined) means "all". */
export type RotationSelection = Partial<Record<SecretKind, boolean>>;

export function chosenKinds(selection: RotationSelection): SecretKind[] {
  if (SECRET_KINDS.every((kind) => selection[kind] === undefined)) return [...SECRET_KINDS];
  const chosen = SECRET_KINDS.filter((kind) => selection[kind] === true);
  if (chosen.length === 0) {
    throw invalidArgument('nothing_to_rotate', 'Choose at least one of secret, apiKey and bearer as true, or send none of them to rotate all.');
  }
  return chosen;
}

export const appNotFound = () => notFound('app_not_found', 'No app with this id was found.');
const tooManyApps = () => resourceExhausted('too_many_apps', `An account may hold at most ${LIMITS.appsPerOwnerMax} apps; delete one first.`);
const appRevoked = () => failedPrecondition('app_revoked', 'The app is revoked; it can be viewed or deleted, not changed.');
// A clash of 256-bit random values means a broken random source, not bad luck;
// one retry covers the theoretical case, a second failure is a real fault.
const INSERT_ATTEMPTS = 2;

/**
 * App management on behalf of a verified owner. Another owner's app, an
 * unknown id and an id of the wrong form are all NOT_FOUND, with one message:
 * each request's other inputs are checked first, then the id, so not even the
 * order of refusals tells the three apart.
 */
export class AppService {
  private readonly now: () => Date;
  private readonly leftovers: AppLeftovers;
  /**
   * Each owner's app list, remembered briefly: the portal (and a script
   * polling it) reads it on every page, and on FerretDB a list is the most
   * expensive read a learner makes. Every change to an app, creation
   * included, drops it on every replica (onChange, the change feed's `apps`),
   * so a list read after a change answered 2xx shows the change.
   */
  private readonly lists: ShortLivedCache<AppRecord[]>;

  constructor(private readonly deps: AppDeps) {
    this.now = deps.now ?? (() => new Date());
    this.leftovers = new AppLeftovers(deps);
    this.lists = new ShortLivedCache({ ttlMs: deps.listCacheMs ?? 0, clock: () => this.now().getTime() });
  }

  async list(ownerId: string): Promise<AppRecord[]> {
    return this.lists.get(ownerId, () => this.deps.apps.listByOwner(ownerId));
  }

  /** Forgets every remembered list; called on every `apps` change, on any replica. */
  forgetLists(): void {
    this.lists.clear();
  }

  async create(ownerId: string, input: CreateAppInput): Promise<{ app: AppRecord; issued: IssuedCredentials }> {
    const name = appName(input.name);
    const description = appDescription(input.description);
    const scopes = input.scopes === undefined ? [...PACK_SCOPES] : scopeList(input.scopes);
    const redirectUris = redirectUriList(input.redirectUris);
    for (let attempt = 1; ; attempt++) {
      const now = this.now();
      const id = newResourceId();
      const { credentials, issued } = this.issue(id, SECRET_KINDS, now);
      const app: AppRecord = {
        id,
        ownerId,
        name,
        description,
        appId: newAppId(),
        redirectUris,
        scopes,
        status: 'active',
        createdAt: now,
        updatedAt: now,
        credentials: credentials as StoredCredentials,
      };
      try {
        // The store holds the cap: a count here and then an insert let concurrent creations on two replicas both see room.
        if (await this.deps.apps.insert(app, LIMITS.appsPerOwnerMax)) {
          await this.deps.onChange();
          return { app, issued };
        }
      } catch (error) {
        if (!(error instanceof DuplicateKeyError) || attempt >= INSERT_ATTEMPTS) throw error;
        continue;
      }
      throw tooManyApps();
    }
  }

  async get(ownerId: string, id: string): Promise<AppRecord> {
    const app = isAppResourceId(id) ? await this.deps.apps.findOwned(ownerId, id) : undefined;
    if (!app) throw appNotFound();
    return app;
  }

  /** Permanently: the app, its credentials, its logs, usage and own limit. With revoke: status revoked, every credential refused. */
  async delete(ownerId: string, id: string, revoke: boolean): Promise<{ outcome: 'deleted' } | { outcome: 'revoked'; app: AppRecord }> {
    if (!isAppResourceId(id)) throw appNotFound();
    if (revoke) {
      const app =
        (await this.deps.apps.update(ownerId, id, { status: 'revoked', updatedAt: this.now() }, { onlyIfActive: true })) ?? (await this.get(ownerId, id)); // already revoked: the same answer again
      await this.deps.onChange();
      return { outcome: 'revoked', app };
    }
    // Read first for its App ID, which names its limit.
    const app = await this.deps.apps.findOwned(ownerId, id);
    // The app document holds every credential, so deleting it ends them all in one write.
    if (!app || !(await this.deps.apps.deleteOwned(ownerId, id))) throw appNotFound();
    await this.deps.onChange();
    // What it leaves goes second; if this fails, the periodic orphan cleanup finishes the job.
    await this.leftovers.remove([app]);
    return { outcome: 'deleted' };
  }

  /** Replaces the chosen credentials; the old values stop working at once. */
  async rotate(ownerId: string, id: string, selection: RotationSelection): Promise<{ app: AppRecord; issued: IssuedCredentials }> {
    const chosen = chosenKinds(selection);
    for (let attempt = 1; ; attempt++) {
      const now = this.now();
      const { credentials, issued } = this.issue(id, chosen, now);
      try {
        const app = await this.changeActive(ownerId, id, { credentials, updatedAt: now });
        return { app, issued };
      } catch (error) {
        if (!(error instanceof DuplicateKeyError) || attempt >= INSERT_ATTEMPTS) throw error;
      }
    }
  }

  regenerateSecret(ownerId: string, id: string): Promise<{ app: AppRecord; issued: IssuedCredentials }> {
    return this.rotate(ownerId, id, { appSecret: true });
  }

  async setRedirectUris(ownerId: string, id: string, uris: readonly string[]): Promise<AppRecord> {
    return this.changeActive(ownerId, id, { redirectUris: redirectUriList(uris), updatedAt: this.now() });
  }

  async setScopes(ownerId: string, id: string, scopes: readonly string[]): Promise<AppRecord> {
    return this.changeActive(ownerId, id, { scopes: scopeList(scopes), updatedAt: this.now() });
  }

  /** Deletes every app of the owner, with their credentials, logs, usage and limits; how many. */
  async resetOwner(ownerId: string): Promise<number> {
    const owned = await this.deps.apps.listByOwner(ownerId);
    const deleted = new Set(await this.deps.apps.deleteAllOwned(ownerId));
    await this.deps.onChange();
    await this.leftovers.remove(owned.filter((app) => deleted.has(app.id)));
    return deleted.size;
  }

  /**
   * Every input is checked before this runs; an id of the wrong form then gets
   * exactly what an unknown id gets, at the same point.
   */
  private async changeActive(ownerId: string, id: string, patch: Parameters<AppStore['update']>[2]): Promise<AppRecord> {
    if (!isAppResourceId(id)) throw appNotFound();
    const app = await this.deps.apps.update(ownerId, id, patch, { onlyIfActive: true });
    if (!app) {
      await this.get(ownerId, id); // NOT_FOUND if it is not there (or not theirs)
      throw appRevoked();
    }
    await this.deps.onChange();
    return app;
  }

  private issue(id: string, kinds: readonly SecretKind[], now: Date): { credentials: Partial<StoredCredentials>; issued: IssuedCredentials } {
    const credentials: Partial<StoredCredentials> = {};
    const issued: IssuedCredentials = {};
    for (const kind of kinds) {
      const value = newSecret(kind);
      issued[kind] = value;
      const meta = { createdAt: now, hint: hintOf(value) };
      if (kind === 'apiKey') credentials.apiKey = { ...meta, lookup: this.deps.crypto.lookup(value), sealed: this.deps.crypto.encrypt(value, id) };
      else credentials[kind] = { ...meta, hash: CredentialCrypto.hash(value) };
    }
    return { credentials, issued };
  }
}
