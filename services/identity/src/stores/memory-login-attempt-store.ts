import type { LoginAttempts, LoginAttemptStore } from './login-attempt-store';

export class MemoryLoginAttemptStore implements LoginAttemptStore {
  private readonly failures = new Map<string, Date[]>();

  async get(key: string, windowStart: Date): Promise<LoginAttempts | undefined> {
    const recent = (this.failures.get(key) ?? []).filter((at) => at >= windowStart);
    if (recent.length === 0) return undefined;
    return { failures: recent.length, lastFailureAt: new Date(Math.max(...recent.map((at) => at.getTime()))) };
  }

  async recordFailure(key: string, at: Date): Promise<void> {
    this.failures.set(key, [...(this.failures.get(key) ?? []), new Date(at)]);
  }

  async clear(key: string): Promise<void> {
    this.failures.delete(key);
  }

  async deleteOlderThan(cutoff: Date): Promise<number> {
    let deleted = 0;
    for (const [key, list] of this.failures) {
      const kept = list.filter((at) => at >= cutoff);
      deleted += list.length - kept.length;
      if (kept.length === 0) this.failures.delete(key);
      else this.failures.set(key, kept);
    }
    return deleted;
  }
}
