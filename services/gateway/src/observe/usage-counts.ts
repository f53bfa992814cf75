import type { identity } from '@sandbox/contracts';
import { APP_ID } from '../config';

const DAY_MS = 86_400_000;

/** What one count is kept under: none of the parts holds a line break (ids, a day number, scheme and family names). */
const keyOf = (app: string, appId: string, day: number, authStyle: string, routeFamily: string) => `${app}\n${appId}\n${day}\n${authStyle}\n${routeFamily}`;

/** One request to count: the app (by id, or by App ID when only that is known), when, how it authenticated, and the route family. */
export interface CountedRequest {
  app: string;
  appId: string;
  /** Epoch milliseconds. */
  at: number;
  authStyle: string;
  routeFamily: string;
}

interface Count {
  app: string;
  appId: string;
  /** Days since the epoch (UTC): formatted only when sent. */
  day: number;
  authStyle: string;
  routeFamily: string;
  requests: number;
  lastAt: number;
}

/**
 * Requests counted per app, UTC day, auth style and route family, between
 * two flushes to identity (RecordRequests' usage), for the operators' usage
 * export. Unlike log entries, which only matter while they are the newest,
 * every count matters: none is dropped as superseded, and counts that could
 * not be sent are taken back and sent with the next flush. Bounded all the
 * same: at most `maxKeys` distinct keys are held (one second of a busy
 * class holds a few hundred), so while identity is away requests of a key
 * not yet held go uncounted once the bound is reached; `dropped` says how
 * many, for the warning.
 */
export class UsageCounts {
  private counts = new Map<string, Count>();
  /** Requests not counted since the last take (the bound was reached). */
  private droppedSince = 0;

  constructor(private readonly maxKeys = 20_000) {}

  count(request: CountedRequest): void {
    // A request that named no app it could be (a Basic username, a client_id as typed) is nobody's usage.
    if (!request.app && !APP_ID.test(request.appId)) return;
    const day = Math.floor(request.at / DAY_MS);
    const key = keyOf(request.app, request.appId, day, request.authStyle, request.routeFamily);
    const held = this.counts.get(key);
    if (held) {
      held.requests++;
      if (request.at > held.lastAt) held.lastAt = request.at;
      return;
    }
    if (this.counts.size >= this.maxKeys) {
      this.droppedSince++;
      return;
    }
    this.counts.set(key, {
      app: request.app,
      appId: request.appId,
      day,
      authStyle: request.authStyle,
      routeFamily: request.routeFamily,
      requests: 1,
      lastAt: request.at,
    });
  }

  get size(): number {
    return this.counts.size;
  }

  /** Everything counted so far, as identity takes it; the counts start again from nothing. */
  take(): { usage: identity.UsageCount[]; dropped: number } {
    const held = [...this.counts.values()];
    const dropped = this.droppedSince;
    this.counts = new Map();
    this.droppedSince = 0;
    return {
      usage: held.map((c) => ({
        app: c.app,
        appId: c.appId,
        day: new Date(c.day * DAY_MS).toISOString().slice(0, 10),
        authStyle: c.authStyle,
        routeFamily: c.routeFamily,
        requests: c.requests,
        lastAt: new Date(c.lastAt).toISOString(),
      })),
      dropped,
    };
  }

  /** Counts taken but not delivered (identity did not answer): added back, within the bound. */
  giveBack(usage: readonly identity.UsageCount[]): void {
    for (const c of usage) {
      const at = Date.parse(c.lastAt);
      const day = Math.floor(Date.parse(`${c.day}T00:00:00Z`) / DAY_MS);
      const key = keyOf(c.app, c.appId, day, c.authStyle, c.routeFamily);
      const held = this.counts.get(key);
      if (held) {
        held.requests += c.requests;
        if (at > held.lastAt) held.lastAt = at;
      } else if (this.counts.size < this.maxKeys) {
        this.counts.set(key, { app: c.app, appId: c.appId, day, authStyle: c.authStyle, routeFamily: c.routeFamily, requests: c.requests, lastAt: at });
      } else {
        this.droppedSince += c.requests;
      }
    }
  }
}
