import type { AppLimitStore } from '../stores/app-limit-store';
import type { AppRecord, AppStore } from '../stores/app-store';
import type { RequestLogStore } from '../stores/request-log-store';
import type { UsageStore } from '../stores/usage-store';

export interface AppLeftoverStores {
  apps: AppStore;
  logs: RequestLogStore;
  usage: UsageStore;
  limits: AppLimitStore;
}

/**
 * What an app leaves behind when it is deleted (by its owner, or with its
 * owner by an operator): its request log, its usage rows and its own
 * fair-share limit. The app goes first, in one write, so its credentials stop
 * at once; these go right after. There are no transactions, so a failure in
 * between leaves some behind, and a request-log batch or usage flush that
 * resolved the app just before it went can add more: the periodic sweep
 * (removeOrphans here, and RequestLogService's for logs) takes those.
 */
export class AppLeftovers {
  constructor(private readonly stores: AppLeftoverStores) {}

  async remove(apps: readonly Pick<AppRecord, 'id' | 'appId'>[]): Promise<void> {
    if (apps.length === 0) return;
    const ids = apps.map((app) => app.id);
    await this.stores.logs.deleteForApps(ids);
    await this.stores.usage.deleteForApps(ids);
    await this.stores.limits.deleteForAppIds(apps.map((app) => app.appId));
  }

  /** Usage rows and limits of apps that no longer exist; how many apps' worth. */
  async removeOrphans(): Promise<number> {
    const used = await this.stores.usage.apps();
    const existing = await this.stores.apps.existingIds(used);
    const goneUsage = used.filter((app) => !existing.has(app));
    await this.stores.usage.deleteForApps(goneUsage);
    const limited = (await this.stores.limits.list()).map((limit) => limit.appId);
    const found = await this.stores.apps.idsByAppId(limited);
    const goneLimits = limited.filter((appId) => !found.has(appId));
    await this.stores.limits.deleteForAppIds(goneLimits);
    return goneUsage.length + goneLimits.length;
  }
}
