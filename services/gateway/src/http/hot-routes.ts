import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { match } from 'path-to-regexp';
import type { Logger } from '@sandbox/runtime';
import { setCorsHeaders } from './cors';
import { badRequest, renderError } from './error-response';
import { beginRequest, pathOf } from './request-context';
import type { HotHandler, RouteDef } from './route-table';

/**
 * The request listener of the gateway's HTTP server. Rows of the route table
 * marked `hot` (the data page every paging client hammers) are served straight
 * from node:http, skipping express's per-request machinery, which on its own
 * costs more than half of a bare server's throughput on this project's
 * 2-core machines. They get the same request context, CORS headers and error
 * rendering as every other route; everything else goes to the express app.
 */
export function createRequestListener(app: Express, routes: RouteDef[], logger: Logger): RequestListener {
  const hot = routes
    .filter((r): r is RouteDef & { hot: HotHandler } => r.hot !== undefined)
    .map((r) => ({ matches: match<Record<string, string>>(r.path, { decode: false }), handler: r.hot }));

  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      const path = pathOf(req);
      for (const route of hot) {
        const matched = route.matches(path);
        if (matched) {
          serve(route.handler, matched.params, req, res, logger, path);
          return;
        }
      }
    }
    app(req, res);
  };
}

function serve(handler: HotHandler, raw: Record<string, string>, req: IncomingMessage, res: ServerResponse, logger: Logger, path: string): void {
  beginRequest(req, res, logger);
  setCorsHeaders(res);
  Promise.resolve()
    .then(() => handler(req, res, decodeParams(raw)))
    .catch((error: unknown) => renderError(res, error, logger, { method: req.method, path }));
}

function decodeParams(raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      throw badRequest('invalid_path', `The path segment ${name} is not valid percent-encoding.`);
    }
  }
  return params;
}
