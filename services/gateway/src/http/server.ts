import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import express, { type Express, type RequestHandler } from 'express';
import { activeTracing, endHttpSpan, startHttpSpan, type Logger } from '@sandbox/runtime';
import { RouteContext, type EdgeOptions } from './context';
import { decorate, type Dispatch } from './dispatch';
import { refusal } from './errors';
import type { Reply } from './reply';
import type { Matched, Router } from './router';

/** The status counted for a request whose client closed the connection before its answer was written. */
const CLIENT_CLOSED = 499;

/** Called once per request when its answer is finished (composition.ts: the access log and the app's request log). */
export type OnRequestFinished = (ctx: RouteContext, status: number) => void;

/** Counts each finished request under its route's path pattern, never its path (observe/metrics.ts). */
export interface RequestMetrics {
  observe(route: string, method: string, status: number, startedAt: bigint): void;
}

/** A span's url.path when the path held a live credential (the credential guard found it; the access log withholds it too). */
const WITHHELD_PATH = '(withheld)';

/** The route label of a request whose path no row serves (a 404 of no row, an absolute-form target, a refused Expect). */
export const UNMATCHED = 'unmatched';

/** The pattern of the rows serving the path, which a 405 or OPTIONS shares with its path's rows. */
function patternOf(matched: Matched | undefined): string {
  if (matched === undefined || matched.kind === 'none') return UNMATCHED;
  return matched.kind === 'route' ? matched.route.path : matched.routes[0].path;
}

/** Express middleware that owns every path under a prefix of its own (the portal's files). */
export interface Mount {
  prefix: string;
  /** What its requests are counted under in the metrics. */
  label: string;
  handler: RequestHandler;
}

export interface RequestListenerOptions {
  router: Router;
  dispatch: Dispatch;
  edge: EdgeOptions;
  logger: Logger;
  onFinished: OnRequestFinished;
  metrics?: RequestMetrics;
  mounts?: Mount[];
  /** Sees every answer the server writes (observe/answer-recorder.ts, a testing aid). */
  recordAnswer?: (ctx: RouteContext, reply: Reply) => void;
  /** True once the gateway is stopping: every answer from then on closes its connection. */
  isDraining?: () => boolean;
}

/**
 * The gateway's HTTP request listener. Every path a route row serves goes
 * straight to the dispatcher from node:http: express's per-request work
 * (prototype swaps, its router) costs about three quarters of a bare server's
 * throughput on this project's 2-core machines (docs/decisions.md). Express
 * remains the framework for what is not a row: middleware mounted under a
 * path of its own (the portal's static assets). Whatever reaches its end is
 * answered by the dispatcher too, so a 404 has one look everywhere.
 */
export function createRequestListener(options: RequestListenerOptions): { listener: RequestListener; app: Express; answerExpectation: RequestListener } {
  const { router, dispatch, edge, logger, onFinished, metrics, mounts = [], recordAnswer, isDraining = () => false } = options;
  const write = (res: ServerResponse, reply: Reply, ctx: RouteContext) => {
    recordAnswer?.(ctx, reply);
    // A keep-alive client then moves to another gateway on its next request, instead of racing this one's close.
    if (isDraining()) res.setHeader('Connection', 'close');
    writeReply(res, reply, ctx, logger);
  };
  const finished = (ctx: RouteContext, route: string, status: number) => {
    onFinished(ctx, status);
    metrics?.observe(route, ctx.method, status, ctx.startedAt);
  };

  // Tracing started before the composition made this listener (process-main.ts), or never: with it off, a request takes the same path as before.
  const tracing = activeTracing();
  const contextOf = (req: IncomingMessage, res: ServerResponse, route: string) => {
    const ctx = new RouteContext(req, edge, (abort) =>
      res.once('close', () => {
        if (!res.writableFinished) abort();
      }),
    );
    res.once('finish', () => finished(ctx, route, res.statusCode));
    if (tracing) tracedContexts.set(req, ctx);
    // A client that went away before its answer was written: counted as 499
    // (nginx's "client closed request"), so the metric holds every request
    // the gateway worked on, and a class of clients giving up is visible.
    // It is finished as such, in the access log and the app's request log too,
    // with when the client gave up (a fact the timeout exercise reads:
    // docs/exercises.md).
    res.once('close', () => {
      if (res.writableFinished) return;
      ctx.fact('client_gave_up_ms', String(Math.round(ctx.elapsedMs())));
      finished(ctx, route, CLIENT_CLOSED);
    });
    return ctx;
  };
  /** A mounted path's context, made before its middleware runs, for the dispatcher when no file answered. */
  const mountedContexts = new WeakMap<IncomingMessage, RouteContext>();
  /** With tracing on, each request's context, for its span's end. */
  const tracedContexts = new WeakMap<IncomingMessage, RouteContext>();

  const serve = (req: IncomingMessage, res: ServerResponse, matched?: Matched) => {
    const ctx = mountedContexts.get(req) ?? contextOf(req, res, patternOf(matched));
    const reply = dispatch(ctx, matched);
    if (reply instanceof Promise) void reply.then((r) => write(res, r, ctx));
    else write(res, reply, ctx);
  };
  /** Expect other than 100-continue: node would answer 417 with an empty body; this gives it the error shape. */
  const answerExpectation = (req: IncomingMessage, res: ServerResponse) => {
    const ctx = new RouteContext(req, edge, () => undefined);
    res.once('finish', () => finished(ctx, UNMATCHED, res.statusCode));
    const refused = refusal(417, 'expectation_failed', 'Only "Expect: 100-continue" is supported; send the request without this Expect header.', ctx.requestId);
    refused.headers.Connection = 'close';
    write(res, decorate(ctx, refused), ctx);
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  for (const mount of mounts) app.use(mount.prefix, mount.handler);
  app.use((req, res) => serve(req, res));

  const mountOf = (path: string) => mounts.find((m) => path === m.prefix || path.startsWith(`${m.prefix}/`));
  const listener: RequestListener = (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const matched = router.match(req.method ?? 'GET', path);
    if (!tracing) return route(req, res, path, matched);
    // The request's server span, active while it is served: its calls to services are its children, and its log lines carry its ids.
    const span = startHttpSpan(tracing, req.method ?? 'GET', matched.kind !== 'none' ? patternOf(matched) : (mountOf(path)?.label ?? UNMATCHED));
    // Left out by the sampler: served as with tracing off (no context to carry, no span downstream).
    if (!span.isRecording()) return route(req, res, path, matched);
    res.once('close', () => {
      // The path as the access log shows it: not at all when the guard found a live credential in it.
      const withheld = tracedContexts.get(req)?.withheldPath;
      endHttpSpan(tracing, span, res.writableFinished ? res.statusCode : CLIENT_CLOSED, withheld ? WITHHELD_PATH : path);
    });
    tracing.withSpan(span, () => route(req, res, path, matched));
  };
  const route = (req: IncomingMessage, res: ServerResponse, path: string, matched: Matched) => {
    if (matched.kind !== 'none') return serve(req, res, matched);
    const mount = mountOf(path);
    if (isDraining()) res.setHeader('Connection', 'close');
    if (mount) {
      // Counted and access-logged like a route, whether a file answers or the dispatcher's 404 does.
      const ctx = contextOf(req, res, mount.label);
      res.setHeader('X-Request-Id', ctx.requestId);
      mountedContexts.set(req, ctx);
    }
    app(req, res);
  };
  return { listener, app, answerExpectation };
}

/** All headers in one writeHead: node then formats them in one pass instead of storing each with setHeader. */
function writeReply(res: ServerResponse, reply: Reply, ctx: RouteContext, logger: Logger): void {
  try {
    res.writeHead(reply.status, reply.headers);
    if (reply.stream) {
      pipeline(reply.stream, res, (error) => {
        if (error) logger.warn({ requestId: ctx.requestId, err: error.message }, 'answer stream failed');
      });
    } else res.end(reply.body);
  } catch (error) {
    // A header node refuses (a handler's bug): answered as a 500, never left unhandled.
    logger.error({ requestId: ctx.requestId, err: error, method: ctx.method, path: ctx.path }, 'answer could not be written');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const failed = refusal(500, 'internal', 'An internal error occurred.', ctx.requestId);
    res.writeHead(failed.status, { ...failed.headers, 'X-Request-Id': ctx.requestId });
    res.end(failed.body);
  }
}
