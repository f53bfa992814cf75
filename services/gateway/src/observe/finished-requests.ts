import type { OnRequestFinished } from '../http/server';
import type { AccessLog } from './access-log';
import type { RequestLogRecorder } from './request-log-recorder';

/**
 * What the gateway does once an answer is finished, in one place: its access
 * log line (method, path without the query, which may hold an api_key, status,
 * latency; never headers or bodies), and, when the request authenticated as
 * an app, an entry in that app's request log.
 */
export function recordFinishedRequests(accessLog: AccessLog, requestLogs: RequestLogRecorder): OnRequestFinished {
  return (ctx, status) => {
    const latencyMs = ctx.elapsedMs();
    accessLog.write({ requestId: ctx.requestId, method: ctx.method, path: ctx.path, status, ms: latencyMs });
    const { credential } = ctx;
    if (credential?.kind === 'app') {
      requestLogs.record({
        app: credential.principal.id,
        at: Date.now(),
        method: ctx.method,
        path: ctx.path,
        status,
        authStyle: credential.scheme,
        latencyMs,
        requestId: ctx.requestId,
      });
    }
  };
}
