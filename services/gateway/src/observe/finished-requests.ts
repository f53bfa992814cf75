import type { OnRequestFinished } from '../http/server';
import type { AccessLog } from './access-log';
import type { RequestLogRecorder } from './request-log-recorder';

/**
 * What the gateway does once an answer is finished, in one place: its access
 * log line (method, path without the query, which may hold an api_key, status,
 * latency; never headers or bodies), and, when the request authenticated as
 * an app or named one, an entry in that app's request log, refusals with the
 * rule that failed, and a count of its usage under its route family.
 */
export function recordFinishedRequests(accessLog: AccessLog, requestLogs: RequestLogRecorder): OnRequestFinished {
  return (ctx, status) => {
    const latencyMs = ctx.elapsedMs();
    const path = ctx.withheldPath ? '(withheld: it held a production credential)' : loggedPath(ctx.path);
    accessLog.write({ requestId: ctx.requestId, method: ctx.method, path, status, ms: latencyMs });
    // The app the request authenticated as, or the one it named (an OAuth client whose secret was wrong).
    const { credential } = ctx;
    const app = credential?.kind === 'app' ? credential.principal.id : '';
    const appId = app ? '' : (ctx.logAs?.appId ?? '');
    if (!app && !appId) return;
    requestLogs.record({
      app,
      appId,
      at: Date.now(),
      method: ctx.method,
      path,
      status,
      authStyle: credential?.kind === 'app' ? credential.scheme : (ctx.logAs?.style ?? ''),
      latencyMs,
      requestId: ctx.requestId,
      failure: status >= 400 ? (ctx.failure ?? '') : '',
      facts: ctx.facts ?? NO_FACTS,
      routeFamily: ctx.route ? ctx.route.family : 'system',
    });
  };
}

/** Shared by every entry without facts (most), rather than an object each. */
const NO_FACTS: Record<string, string> = Object.freeze({});

/** Paths longer than this are cut in logs: a request line can be 16 KB, a log line should not be. */
export const LOGGED_PATH_MAX = 512;

/** The path only (an absolute-form target's host and query stay out of the log), cut to a bounded length. */
function loggedPath(target: string): string {
  const path = target.startsWith('/') ? target : pathOfAbsolute(target);
  return path.length > LOGGED_PATH_MAX ? `${path.slice(0, LOGGED_PATH_MAX)}…` : path;
}

function pathOfAbsolute(target: string): string {
  try {
    return new URL(target).pathname;
  } catch {
    return '(not a path)';
  }
}
