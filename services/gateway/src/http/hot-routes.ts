import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { match } from 'path-to-regexp';
import type { Logger } from '@sandbox/runtime';
import { badRequest, renderError } from './error-response';
import { beginRequest, commonHeaders, pathOf, setCommonHeaders, type OnRequestFinished, type RequestLocals } from './request-context';
import type { HotHandler, HotResponse, RouteDef } from './route-table';

/**
 * The request listener of the gateway's HTTP server. Rows of the route table
 * marked `hot` (the data page every paging client hammers) are served straight
 * from node:http, skipping express's per-request machinery, which on its own
 * costs more than half of a bare server's throughput on this project's
 * 2-core machines. They get the same request context, common headers and error
 * rendering as every other route; everything else goes to the express app.
 */
export function createRequestListener(app: Express, routes: RouteDef[], logger: Logger, onFinished: OnRequestFinished): RequestListener {
  const hot = routes
    .filter((r): r is RouteDef & { hot: HotHandler } => r.hot !== undefined)
    .map((r) => ({ matches: match<Record<string, string>>(r.path, { decode: false }), handler: r.hot }));

  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      const path = pathOf(req);
      for (const route of hot) {
        const matched = route.matches(path);
        if (matched) {
          serve(route.handler, matched.params, req, res, { logger, onFinished, path });
          return;
        }
      }
    }
    app(req, res);
  };
}

function serve(
  handler: HotHandler,
  raw: Record<string, string>,
  req: IncomingMessage,
  res: ServerResponse,
  context: { logger: Logger; onFinished: OnRequestFinished; path: string },
): void {
  const locals = beginRequest(req, res, context.onFinished);
  const fail = (error: unknown) => {
    if (!res.headersSent) setCommonHeaders(res, locals.requestId);
    renderError(res, error, context.logger, { method: req.method, path: context.path });
  };
  try {
    const answer = handler(req, res, decodeParams(raw));
    // A handler answers synchronously when everything it needs is cached: no promise, no microtask.
    // (A failure while writing, e.g. a header node refuses, is rendered too, never left unhandled.)
    if (answer instanceof Promise) answer.then((a) => write(res, locals, a)).catch(fail);
    else write(res, locals, answer);
  } catch (error) {
    fail(error);
  }
}

/** All headers in one writeHead: node then formats them in one pass instead of storing each with setHeader. */
function write(res: ServerResponse, locals: RequestLocals, answer: HotResponse): void {
  res.writeHead(answer.status, Object.assign(commonHeaders(locals.requestId), answer.headers));
  res.end(answer.body);
}

function decodeParams(raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    params[name] = value.includes('%') ? decodeSegment(name, value) : value;
  }
  return params;
}

function decodeSegment(name: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest('invalid_path', `The path segment ${name} is not valid percent-encoding.`);
  }
}
