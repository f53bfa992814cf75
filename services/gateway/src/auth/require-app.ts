import type { RequestHandler } from 'express';
import type { GatewayDeps } from '../deps';
import type { Authenticated, AuthStyle } from './credential-verifier';

/** Data-endpoint styles (spec, Authentication rule 1). */
export const DATA_STYLES: AuthStyle[] = ['api_key_header', 'api_key_query', 'bearer', 'oauth2'];

/**
 * Middleware: authenticates the app credential (res.locals.auth) and records
 * the request in that app's log once the response is finished.
 */
export function requireApp(deps: GatewayDeps, accepted: AuthStyle[]): RequestHandler {
  return async (req, res, next) => {
    const auth: Authenticated = await deps.credentials.authenticate(req, accepted, res.locals.requestId);
    res.locals.auth = auth;
    res.on('finish', () => {
      const started = res.locals.startedAt as bigint;
      deps.requestLogs.record({
        app: auth.principal.id,
        time: new Date().toISOString(),
        method: req.method,
        path: req.path,
        status: res.statusCode,
        authStyle: auth.style,
        latencyMs: Math.round((Number(process.hrtime.bigint() - started) / 1e6) * 100) / 100,
        requestId: res.locals.requestId,
      });
    });
    next();
  };
}
