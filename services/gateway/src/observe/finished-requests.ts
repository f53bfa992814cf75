import type { AccessLog } from './access-log';
import type { RequestLogRecorder } from './auth/request-log-recorder';
import { pathOf, type OnRequestFinished } from './http/request-context';

/**
 * What the gateway does once a response is finished, in one place: its access
 * log line (method, path without the query, which may hold an api_key, status,
 * latency; never headers or bodies), and, when the request presented an app
 * credential, an entry in that app's request log.
 */
export function recordFinishedRequests(accessLog: AccessLog, requestLogs: RequestLogRecorder): OnRequestFinished {
  return ({ req, res, locals, latencyMs }) => {
    const path = pathOf(req);
    accessLog.write({ requestId: locals.requestId, method: req.method, path, status: res.statusCode, ms: latencyMs });
    const { auth } = locals;
    if (auth) {
      requestLogs.record({
        app: auth.principal.id,
        at: Date.now(),
        method: req.method ?? 'GET',
        path,
        status: res.statusCode,
        authStyle: auth.style,
        latencyMs,
        requestId: locals.requestId,
      });
    }
  };
}
