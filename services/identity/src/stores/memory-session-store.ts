import type { SessionRecord, SessionStore } from './session-store';

export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();

  async put(session: SessionRecord): Promise<void> {
    this.sessions.set(session.id, structuredClone(session));
  }

  async find(id: string, now: Date): Promise<SessionRecord | undefined> {
    const session = this.sessions.get(id);
    return session && session.expiresAt > now ? structuredClone(session) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }

  async deleteForUser(userId: string): Promise<number> {
    let deleted = 0;
    for (const [id, session] of this.sessions) {
      if (session.userId === userId && session.kind !== 'deleted') {
        this.sessions.delete(id);
        deleted++;
      }
    }
    return deleted;
  }

  async deleteExpired(now: Date): Promise<number> {
    let deleted = 0;
    for (const [id, session] of this.sessions) {
      if (session.expiresAt <= now) {
        this.sessions.delete(id);
        deleted++;
      }
    }
    return deleted;
  }
}
