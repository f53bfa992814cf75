import { invalidArgument, resourceExhausted, unavailable } from '@sandbox/runtime';
import type { AppStore } from '../stores/app-store';
import { BatchApps } from './batch-apps';
import { BoundedConcurrency } from './bounded-concurrency';
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
 *
 * Batches are stored two at a time; others wait their turn, at most 16 (more
 * than the gateways an install runs, each sending one flush at a time), and
 * the rest are refused at once (RESOURCE_EXHAUSTED). A batch whose caller
 * gave up while it waited (its deadline passed) is dropped when its turn
 * comes: the gateway has counted it as failed and sends its usage counts
 * again. Before this bound, a store slower than the flushes made batches
 * pile up, each holding its entries and every app they name (the 5-minute
 * soak: 24 at once, identity's live heap 51 → 110 MiB and its RSS past the
 * chart's limit; docs/decisions.md, "Memory at rest and under load"). A
 * refused gateway keeps its usage counts for its next flush and drops the log
 * entries, as for any failed flush (request-log-recorder.ts).
 */
export class RecordedRequests {
  private readonly turns: BoundedConcurrency;

  constructor(
    private readonly apps: AppStore,
    private readonly logs: RequestLogService,
    private readonly usage: UsageService,
    bounds: { concurrency: number; maxWaiting: number } = { concurrency: 2, maxWaiting: 16 },
  ) {
    this.turns = new BoundedConcurrency(bounds.concurrency, bounds.maxWaiting);
  }

  /** How many entries and counts were kept. `signal`: the call's, aborted when its caller gives up. */
  async record(entries: readonly RequestLogInput[], usage: readonly UsageInput[], signal?: AbortSignal): Promise<{ entries: number; usage: number }> {
    if (entries.length > LIMITS.recordBatchMax)
      throw invalidArgument('batch_too_large', `At most ${LIMITS.recordBatchMax} entries per call (got ${entries.length}).`);
    if (usage.length > LIMITS.recordBatchMax)
      throw invalidArgument('batch_too_large', `At most ${LIMITS.recordBatchMax} usage counts per call (got ${usage.length}).`);
    if (entries.length === 0 && usage.length === 0) return { entries: 0, usage: 0 };
    return this.turns.run(
      async () => {
        if (signal?.aborted) throw unavailable('record_abandoned', 'The batch waited past its deadline; its sender has counted it as failed.');
        const apps = await BatchApps.resolve(this.apps, [...entries, ...usage]);
        return { entries: await this.logs.record(entries, apps), usage: await this.usage.record(usage, apps) };
      },
      () =>
        resourceExhausted('record_busy', 'Identity is still storing earlier request log batches; this one is refused, send its counts again later.').retryAfter(
          1,
        ),
    );
  }
}
