import { DuplicateKeyError } from './errors';
import type { UserRecord, UserStore } from './user-store';

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
}
