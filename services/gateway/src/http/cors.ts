import type { OutgoingHttpHeaders } from 'node:http';
import type { RouteContext } from './context';
import { empty, type Reply } from './reply';

const EXPOSED = ['Link', 'ETag', 'X-Request-Id', 'WWW-Authenticate', 'Retry-After', 'Location', 'X-Batch-Budget-Ms', 'X-Batch-Order'].join(', ');

/**
 * Who may read a route's answers from a browser page: the CORS headers of
 * its answers, and its answer to a preflight. A row names its policy
 * (route.ts `cors`): the API's, OPEN_CORS below, unless it says otherwise
 * (the CORS lab's: routes/http-practice/cors-lab.ts).
 */
export interface CorsPolicy {
  /** The CORS headers of an answer under this policy. */
  headers(ctx: RouteContext): Readonly<Record<string, string>>;
  /** The answer to a preflight at a path served with `methods`. */
  preflight(ctx: RouteContext, methods: readonly string[]): Reply;
}

/**
 * The API's policy ("open"): the sandbox is called from learners' pages on any
 * origin, with credentials in headers (never cookies), so every origin is
 * allowed without credentials. Clients need to read the paging, tracing,
 * challenge and batch headers, so those are exposed.
 */
export const OPEN_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED,
});

/** The API's policy: any origin, no credentials (OPEN_CORS_HEADERS). */
export const OPEN_CORS: CorsPolicy = {
  headers: () => OPEN_CORS_HEADERS,
  preflight(ctx, methods) {
    const requestedHeaders = ctx.headers['access-control-request-headers'];
    const headers: OutgoingHttpHeaders = {
      'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
      'Access-Control-Max-Age': '600',
      Vary: 'Origin, Access-Control-Request-Headers',
    };
    if (requestedHeaders) headers['Access-Control-Allow-Headers'] = requestedHeaders;
    return empty(204, headers);
  },
};

/** A CORS preflight is an OPTIONS request that names the method it asks about. */
export function isPreflight(ctx: RouteContext): boolean {
  return ctx.method === 'OPTIONS' && ctx.headers['access-control-request-method'] !== undefined;
}
