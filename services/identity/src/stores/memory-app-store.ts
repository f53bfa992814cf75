import type { AppPatch, AppRecord, AppStore } from './app-store';
import { DuplicateKeyError } from './errors';

/** The embedded default. Records are copied in and out, as a database would. */
export class MemoryAppStore implements AppStore {
  private readonly apps = new Map<string, AppRecord>();

  // Checked and written in one synchronous step: no other call runs in between, so the cap holds under concurrent calls.
  async insert(app: AppRecord, capPerOwner?: number): Promise<boolean> {
    if (capPerOwner !== undefined && this.countOwned(app.ownerId) >= capPerOwner) return false;
    if (this.apps.has(app.id)) throw new DuplicateKeyError('_id');
    for (const other of this.apps.values()) {
      if (other.appId === app.appId) throw new DuplicateKeyError('appId');
      if (other.credentials.apiKey.lookup === app.credentials.apiKey.lookup) throw new DuplicateKeyError('credentials.apiKey.lookup');
      if (other.credentials.bearerToken.hash === app.credentials.bearerToken.hash) throw new DuplicateKeyError('credentials.bearerToken.hash');
    }
    this.apps.set(app.id, structuredClone(app));
    return true;
  }

  async listByOwner(ownerId: string): Promise<AppRecord[]> {
    return [...this.apps.values()]
      .filter((app) => app.ownerId === ownerId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .map((app) => structuredClone(app));
  }

  async countByOwner(ownerId: string): Promise<number> {
    return this.countOwned(ownerId);
  }

  async findOwned(ownerId: string, id: string): Promise<AppRecord | undefined> {
    const app = this.apps.get(id);
    return app && app.ownerId === ownerId ? structuredClone(app) : undefined;
  }

  async findByAppId(appId: string): Promise<AppRecord | undefined> {
    return this.findWhere((app) => app.appId === appId);
  }

  async findByApiKeyLookup(lookup: string): Promise<AppRecord | undefined> {
    return this.findWhere((app) => app.credentials.apiKey.lookup === lookup);
  }

  async findByBearerHash(hash: string): Promise<AppRecord | undefined> {
    return this.findWhere((app) => app.credentials.bearerToken.hash === hash);
  }

  async update(ownerId: string, id: string, patch: AppPatch, options: { onlyIfActive?: boolean } = {}): Promise<AppRecord | undefined> {
    const app = this.apps.get(id);
    if (!app || app.ownerId !== ownerId || (options.onlyIfActive && app.status !== 'active')) return undefined;
    const { credentials, ...rest } = structuredClone(patch);
    const updated: AppRecord = { ...app, ...rest, credentials: { ...app.credentials, ...credentials } };
    this.apps.set(id, updated);
    return structuredClone(updated);
  }

  async deleteOwned(ownerId: string, id: string): Promise<boolean> {
    const app = this.apps.get(id);
    if (!app || app.ownerId !== ownerId) return false;
    return this.apps.delete(id);
  }

  async deleteAllOwned(ownerId: string): Promise<string[]> {
    const ids = [...this.apps.values()].filter((app) => app.ownerId === ownerId).map((app) => app.id);
    for (const id of ids) this.apps.delete(id);
    return ids;
  }

  async existingIds(ids: string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.apps.has(id)));
  }

  async idsByAppId(appIds: string[]): Promise<Map<string, string>> {
    const wanted = new Set(appIds);
    return new Map([...this.apps.values()].filter((app) => wanted.has(app.appId)).map((app) => [app.appId, app.id]));
  }

  async setOwnerDisabled(ownerId: string, disabled: boolean): Promise<number> {
    let changed = 0;
    for (const app of this.apps.values()) {
      if (app.ownerId !== ownerId || (app.ownerDisabled ?? false) === disabled) continue;
      app.ownerDisabled = disabled;
      changed++;
    }
    return changed;
  }

  async findByIds(ids: string[]): Promise<AppRecord[]> {
    return ids.flatMap((id) => {
      const app = this.apps.get(id);
      return app ? [structuredClone(app)] : [];
    });
  }

  async countByOwners(ownerIds: string[]): Promise<Map<string, number>> {
    const wanted = new Set(ownerIds);
    const counts = new Map<string, number>();
    for (const app of this.apps.values()) if (wanted.has(app.ownerId)) counts.set(app.ownerId, (counts.get(app.ownerId) ?? 0) + 1);
    return counts;
  }

  private countOwned(ownerId: string): number {
    let count = 0;
    for (const app of this.apps.values()) if (app.ownerId === ownerId) count++;
    return count;
  }

  private findWhere(predicate: (app: AppRecord) => boolean): AppRecord | undefined {
    for (const app of this.apps.values()) if (predicate(app)) return structuredClone(app);
    return undefined;
  }
}
