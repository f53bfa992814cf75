import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '@sandbox/runtime';

const REQUEST_ID_HEADER = 'X-Request-Id';
/** A caller-supplied id is kept only when it is short and plain, so it is safe in logs and headers. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What every handler may know about its request; kept in res.locals, which express also uses. */
export interface RequestLocals {
  requestId: string;
  startedAt: bigint;
  query?: URLSearchParams;
  [key: string]: unknown;
}

type WithLocals = ServerResponse & { locals?: RequestLocals };

export function localsOf(res: ServerResponse): RequestLocals {
  return (res as WithLocals).locals as RequestLocals;
}

/**
 * Gives a request its id (the caller's, when acceptable), echoes it in a
 * header, and logs one line when the response is done: method, path without
 * the query (it may hold an api_key), status, latency. Never headers or bodies.
 * Used by the express app and by the hot route alike.
 */
export function beginRequest(req: IncomingMessage, res: ServerResponse, logger: Logger): RequestLocals {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
  const startedAt = process.hrtime.bigint();
  const locals: RequestLocals = Object.assign((res as WithLocals).locals ?? Object.create(null), { requestId, startedAt });
  (res as WithLocals).locals = locals;
  res.setHeader(REQUEST_ID_HEADER, requestId);
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - startedAt) / 1e6;
    logger.info({ requestId, method: req.method, path: pathOf(req), status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
  });
  return locals;
}

export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    beginRequest(req, res, logger);
    next();
  };
}

/** The request path without its query string. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
