import type { AppLimitRecord, AppLimitStore } from './app-limit-store';

export class MemoryAppLimitStore implements AppLimitStore {
  private readonly limits = new Map<string, AppLimitRecord>();

  async put(limit: AppLimitRecord): Promise<void> {
    this.limits.set(limit.appId, structuredClone(limit));
  }

  async delete(appId: string): Promise<boolean> {
    return this.limits.delete(appId);
  }

  async list(): Promise<AppLimitRecord[]> {
    return [...this.limits.values()].map((limit) => structuredClone(limit));
  }

  async deleteForAppIds(appIds: string[]): Promise<number> {
    return appIds.filter((appId) => this.limits.delete(appId)).length;
  }
}
