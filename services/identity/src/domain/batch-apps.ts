import type { AppRecord, AppStore } from '../stores/app-store';
import { PATTERN } from './credentials';

/** How an entry or a count names its app: by internal id, or (when the caller did not authenticate as it) by App ID. */
export interface NamedApp {
  app: string;
  appId: string;
}

/**
 * The apps a batch names, read once for all of it: its log entries and its
 * usage counts name the same few apps, and each read here is a store query
 * per flush of every gateway (docs/reliability.md, the store work per request).
 */
export class BatchApps {
  private constructor(
    private readonly byAppId: ReadonlyMap<string, string>,
    private readonly byId: ReadonlyMap<string, AppRecord>,
  ) {}

  /** At most two queries: the internal ids of apps named by App ID (only when some are), then every app by internal id. */
  static async resolve(apps: AppStore, named: readonly NamedApp[]): Promise<BatchApps> {
    const appIds = new Set<string>();
    for (const { app, appId } of named) if (!app && PATTERN.appId.test(appId)) appIds.add(appId);
    const byAppId = appIds.size ? await apps.idsByAppId([...appIds]) : new Map<string, string>();
    const ids = new Set<string>();
    for (const { app, appId } of named) {
      const id = app || byAppId.get(appId) || '';
      if (PATTERN.resourceId.test(id)) ids.add(id);
    }
    const records = ids.size ? await apps.findByIds([...ids]) : [];
    return new BatchApps(byAppId, new Map(records.map((record) => [record.id, record])));
  }

  /** The internal id an entry or count names, '' when it names none that exists. */
  idOf({ app, appId }: NamedApp): string {
    return app || this.byAppId.get(appId) || '';
  }

  /** The app with this internal id, when it exists. */
  get(id: string): AppRecord | undefined {
    return this.byId.get(id);
  }
}
