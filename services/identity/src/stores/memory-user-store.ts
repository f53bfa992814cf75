import { DuplicateKeyError } from './errors';
import type { UserCursor, UserPatch, UserRecord, UserStore } from './user-store';

const oldestFirst = (a: UserRecord, b: UserRecord) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const after = (user: UserRecord, cursor: UserCursor) =>
  user.createdAt.getTime() > cursor.createdAt.getTime() || (user.createdAt.getTime() === cursor.createdAt.getTime() && user.id > cursor.id);

export class MemoryUserStore implements UserStore {
  private readonly byId = new Map<string, UserRecord>();
  private readonly idByKey = new Map<string, string>();

  async insert(user: UserRecord): Promise<void> {
    if (this.byId.has(user.id)) throw new DuplicateKeyError('_id');
    if (this.idByKey.has(user.key)) throw new DuplicateKeyError('key');
    this.byId.set(user.id, structuredClone(user));
    this.idByKey.set(user.key, user.id);
  }

  async findById(id: string): Promise<UserRecord | undefined> {
    const user = this.byId.get(id);
    return user && structuredClone(user);
  }

  async findByKey(key: string): Promise<UserRecord | undefined> {
    const id = this.idByKey.get(key);
    return id === undefined ? undefined : this.findById(id);
  }

  async findOrInsert(user: UserRecord): Promise<UserRecord> {
    // No await between the check and the write: one event-loop turn is atomic.
    const id = this.idByKey.get(user.key);
    if (id !== undefined) return structuredClone(this.byId.get(id)!);
    this.byId.set(user.id, structuredClone(user));
    this.idByKey.set(user.key, user.id);
    return structuredClone(user);
  }

  async findByIds(ids: string[]): Promise<UserRecord[]> {
    return ids.flatMap((id) => {
      const user = this.byId.get(id);
      return user ? [structuredClone(user)] : [];
    });
  }

  async update(id: string, patch: UserPatch): Promise<UserRecord | undefined> {
    const user = this.byId.get(id);
    if (!user) return undefined;
    for (const [field, value] of Object.entries(patch)) {
      if (value === null) delete (user as unknown as Record<string, unknown>)[field];
      else if (value !== undefined) (user as unknown as Record<string, unknown>)[field] = structuredClone(value);
    }
    return structuredClone(user);
  }

  async delete(id: string): Promise<boolean> {
    const user = this.byId.get(id);
    if (!user) return false;
    this.byId.delete(id);
    this.idByKey.delete(user.key);
    return true;
  }

  async list(query: { limit: number; after?: UserCursor; emailContains?: string }): Promise<UserRecord[]> {
    return this.matching(query.emailContains)
      .filter((user) => !query.after || after(user, query.after))
      .slice(0, query.limit)
      .map((user) => structuredClone(user));
  }

  async count(emailContains?: string): Promise<number> {
    return this.matching(emailContains).length;
  }

  async createdBefore(before: Date): Promise<UserRecord[]> {
    return this.matching()
      .filter((user) => user.createdAt < before)
      .map((user) => structuredClone(user));
  }

  private matching(emailContains?: string): UserRecord[] {
    return [...this.byId.values()].filter((user) => !emailContains || user.email.includes(emailContains)).sort(oldestFirst);
  }
}
