import { invalidArgument } from '@sandbox/runtime';
import type { AppStore } from '../stores/app-store';
import type { UsageRecord, UsageStore } from '../stores/usage-store';
import { BatchApps } from './batch-apps';
import { LIMITS } from './limits';

/** A count as the gateway reports it (identity.proto UsageCount): the app by internal id or, failing that, by App ID. */
export interface UsageInput {
  app: string;
  appId: string;
  day: string;
  authStyle: string;
  routeFamily: string;
  requests: number;
  lastAt: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const LABEL = /^[a-z0-9_-]{1,32}$/;
/** More than a gateway can count in a flush interval: a bigger figure is a bug or a forgery, not traffic. */
const REQUESTS_MAX = 1_000_000_000;
const DAY_MS = 24 * 3600_000;

/** A UTC day, YYYY-MM-DD, that is a real date. */
export function isDay(text: string): boolean {
  if (!DAY.test(text)) return false;
  const moment = Date.parse(`${text}T00:00:00Z`);
  // Date.parse rolls 2030-02-30 over to March rather than refusing it: the round trip tells.
  return Number.isFinite(moment) && new Date(moment).toISOString().startsWith(text);
}

/**
 * The latest request of a day's count, kept within that day: a clock far
 * ahead (or a forged figure) would otherwise make the user look active for
 * ever in the operators' list. Not a time at all: the day's start.
 */
export function lastAtWithin(day: string, lastAt: string): Date {
  const start = Date.parse(`${day}T00:00:00Z`);
  const parsed = Date.parse(lastAt);
  return new Date(Number.isFinite(parsed) ? Math.min(Math.max(parsed, start), start + DAY_MS - 1) : start);
}

/**
 * Request counts per day, app, auth style and route family, from the
 * gateways' flushes: every request counted (the request log keeps only each
 * app's newest), kept until an operator purges them or the app goes.
 */
export class UsageService {
  constructor(
    private readonly usage: UsageStore,
    private readonly apps: AppStore,
  ) {}

  /**
   * Adds the counts of apps that exist; malformed counts are dropped, as
   * malformed log entries are. `apps`: the batch's apps when the caller has
   * read them already (RecordedRequests), else read here.
   */
  async record(inputs: readonly UsageInput[], apps?: BatchApps): Promise<number> {
    if (inputs.length === 0) return 0;
    if (inputs.length > LIMITS.recordBatchMax) {
      throw invalidArgument('batch_too_large', `At most ${LIMITS.recordBatchMax} usage counts per call (got ${inputs.length}).`);
    }
    const valid = inputs.filter(
      (input) =>
        isDay(input.day) &&
        LABEL.test(input.routeFamily) &&
        (input.authStyle === '' || LABEL.test(input.authStyle)) &&
        Number.isInteger(input.requests) &&
        input.requests > 0 &&
        input.requests <= REQUESTS_MAX,
    );
    if (valid.length === 0) return 0;
    const known = apps ?? (await BatchApps.resolve(this.apps, valid));
    const rows: UsageRecord[] = [];
    for (const input of valid) {
      const app = known.get(known.idOf(input));
      if (!app) continue;
      rows.push({
        day: input.day,
        app: app.id,
        appId: app.appId,
        userId: app.ownerId,
        authStyle: input.authStyle,
        routeFamily: input.routeFamily,
        requests: input.requests,
        lastAt: lastAtWithin(input.day, input.lastAt),
      });
    }
    if (rows.length > 0) await this.usage.add(rows);
    return rows.length;
  }
}
