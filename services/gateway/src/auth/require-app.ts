import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayDeps } from '../deps';
import { queryOf } from '../http/query';
import { localsOf, pathOf } from '../http/request-context';
import type { Authenticated, AuthStyle } from './credential-verifier';

/** Data-endpoint styles (spec, Authentication rule 1). */
export const DATA_STYLES: AuthStyle[] = ['api_key_header', 'api_key_query', 'bearer', 'oauth2'];

/**
 * Authenticates the app credential a request presents (throws UNAUTHENTICATED)
 * and records the request in that app's log once the response is finished.
 */
export async function authenticateApp(deps: GatewayDeps, req: IncomingMessage, res: ServerResponse, accepted: AuthStyle[]): Promise<Authenticated> {
  const locals = localsOf(res);
  const auth = await deps.credentials.authenticate(req, queryOf(req, res), accepted, locals.requestId);
  locals.auth = auth;
  res.on('finish', () => {
    deps.requestLogs.record({
      app: auth.principal.id,
      time: new Date().toISOString(),
      method: req.method ?? 'GET',
      path: pathOf(req),
      status: res.statusCode,
      authStyle: auth.style,
      latencyMs: Math.round((Number(process.hrtime.bigint() - locals.startedAt) / 1e6) * 100) / 100,
      requestId: locals.requestId,
    });
  });
  return auth;
}
