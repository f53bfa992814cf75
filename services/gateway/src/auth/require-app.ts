import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayDeps } from '../deps';
import { queryOf } from '../http/query';
import { localsOf } from '../http/request-context';
import { whenReady, type MaybePromise } from '../maybe-async';
import type { Authenticated, AuthStyle } from './credential-verifier';

/** Data-endpoint styles (spec, Authentication rule 1). */
export const DATA_STYLES: AuthStyle[] = ['api_key_header', 'api_key_query', 'bearer', 'oauth2'];

/**
 * Authenticates the app credential a request presents (throws UNAUTHENTICATED)
 * and keeps it in the request's locals, so that once the response is finished
 * the request is recorded in that app's log (request-observer.ts).
 */
export function authenticateApp(deps: GatewayDeps, req: IncomingMessage, res: ServerResponse, accepted: AuthStyle[]): MaybePromise<Authenticated> {
  const locals = localsOf(res);
  return whenReady(deps.credentials.authenticate(req, queryOf(req, res), accepted, locals.requestId), (auth) => {
    locals.auth = auth;
    return auth;
  });
}
