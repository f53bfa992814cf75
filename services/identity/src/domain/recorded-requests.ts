import { invalidArgument } from '@sandbox/runtime';
import type { AppStore } from '../stores/app-store';
import { BatchApps } from './batch-apps';
import { LIMITS } from './limits';
import type { RequestLogInput, RequestLogService } from './request-logs';
import type { UsageInput, UsageService } from './usage';

/**
 * One RecordRequests call, a gateway's flush: its log entries and usage
 * counts stored with the apps they name read once for both. What it costs the
 * store: the apps (one query, two when some are named by App ID), one insert
 * of the entries, one query for whether the apps are still there (an app
 * deleted meanwhile has its entries taken back, request-logs.ts), the usage
 * upserts (mongo-usage-store.ts), and now and then an app's trim.
 */
export class RecordedRequests {
  constructor(
    private readonly apps: AppStore,
    private readonly logs: RequestLogService,
    private readonly usage: UsageService,
  ) {}

  /** How many entries and counts were kept. */
  async record(entries: readonly RequestLogInput[], usage: readonly UsageInput[]): Promise<{ entries: number; usage: number }> {
    if (entries.length > LIMITS.recordBatchMax)
      throw invalidArgument('batch_too_large', `At most ${LIMITS.recordBatchMax} entries per call (got ${entries.length}).`);
    if (usage.length > LIMITS.recordBatchMax)
      throw invalidArgument('batch_too_large', `At most ${LIMITS.recordBatchMax} usage counts per call (got ${usage.length}).`);
    if (entries.length === 0 && usage.length === 0) return { entries: 0, usage: 0 };
    const apps = await BatchApps.resolve(this.apps, [...entries, ...usage]);
    return { entries: await this.logs.record(entries, apps), usage: await this.usage.record(usage, apps) };
  }
}
