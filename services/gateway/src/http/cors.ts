import type { OutgoingHttpHeaders } from 'node:http';
import type { RouteContext } from './context';
import { empty, type Reply } from './reply';
import type { CorsPolicy, HttpMethod } from './route';

/**
 * The API's policy ("open"): the sandbox is called from learners' pages on any
 * origin, with credentials in headers (never cookies), so every origin is
 * allowed without credentials. Clients need to read the paging, tracing and
 * challenge headers, so those are exposed.
 */
const OPEN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': ['Link', 'ETag', 'X-Request-Id', 'WWW-Authenticate', 'Retry-After', 'Location'].join(', '),
});

/** The CORS headers of an answer under a route's policy. */
export function corsHeaders(_policy: CorsPolicy): Readonly<Record<string, string>> {
  return OPEN_HEADERS;
}

/** A CORS preflight is an OPTIONS request that names the method it asks about. */
export function isPreflight(ctx: RouteContext): boolean {
  return ctx.method === 'OPTIONS' && ctx.headers['access-control-request-method'] !== undefined;
}

/** The answer to a preflight at a path served with `methods`: those methods, and whatever headers were asked for. */
export function preflightReply(ctx: RouteContext, _policy: CorsPolicy, methods: readonly HttpMethod[]): Reply {
  const headers: OutgoingHttpHeaders = {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Max-Age': '600',
    Vary: 'Origin, Access-Control-Request-Headers',
  };
  const requested = ctx.headers['access-control-request-headers'];
  if (requested) headers['Access-Control-Allow-Headers'] = requested;
  return empty(204, headers);
}
