import { invalidArgument, resourceExhausted, unavailable, type Logger } from '@sandbox/runtime';
import type { AppStore } from '../stores/app-store';
import { BatchApps } from './batch-apps';
import { BoundedConcurrency } from './bounded-concurrency';
import { sanitizeFacts, type ExerciseProgressService, type LearnerRequest } from './exercises/progress';
import { LIMITS } from './limits';
import { sanitizeEntry, type RequestLogInput, type RequestLogService } from './request-logs';
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
 *
 * Last, the batch's requests are judged for exercises (exercises/progress.ts):
 * off the request path, from what the gateways send anyway. A judging that
 * fails is logged, not answered: the entries and counts are stored by then,
 * and a failed answer would have the gateway count them again.
 */
export interface RecordedRequestsOptions {
  exercises?: { progress: ExerciseProgressService; logger: Logger };
  /** Batches stored at once, and waiting for a turn. */
  concurrency?: number;
  maxWaiting?: number;
}

export class RecordedRequests {
  private readonly turns: BoundedConcurrency;
  private readonly exercises: RecordedRequestsOptions['exercises'];

  constructor(
    private readonly apps: AppStore,
    private readonly logs: RequestLogService,
    private readonly usage: UsageService,
    options: RecordedRequestsOptions = {},
  ) {
    this.turns = new BoundedConcurrency(options.concurrency ?? 2, options.maxWaiting ?? 16);
    this.exercises = options.exercises;
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
        const kept = { entries: await this.logs.record(entries, apps), usage: await this.usage.record(usage, apps) };
        await this.judgeExercises(entries, apps);
        return kept;
      },
      () =>
        resourceExhausted('record_busy', 'Identity is still storing earlier request log batches; this one is refused, send its counts again later.').retryAfter(
          1,
        ),
    );
  }

  private async judgeExercises(entries: readonly RequestLogInput[], apps: BatchApps): Promise<void> {
    if (!this.exercises || entries.length === 0) return;
    const now = new Date();
    const requests: LearnerRequest[] = [];
    for (const input of entries) {
      const app = apps.get(apps.idOf(input));
      const entry = app && sanitizeEntry({ ...input, app: app.id }, now);
      if (!app || !entry) continue;
      const { method, path, status, authStyle, failure, time } = entry;
      requests.push({
        userId: app.ownerId,
        app: app.id,
        request: { method, path, status, authStyle, failure, at: time.getTime(), facts: sanitizeFacts(input.facts) },
      });
    }
    try {
      await this.exercises.progress.judge(requests);
    } catch (error) {
      this.exercises.logger.warn({ err: (error as Error).message, requests: requests.length }, 'exercises not judged for a request log batch');
    }
  }
}
