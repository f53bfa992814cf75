import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Authenticated } from '../auth/credential-verifier';
import { CORS_HEADERS } from './cors';

/** A caller-supplied id is kept only when it is short and plain, so it is safe in logs and headers. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What every handler may know about its request; kept in res.locals, which express also uses. */
export interface RequestLocals {
  requestId: string;
  startedAt: bigint;
  query?: URLSearchParams;
  /** The app credential the request presented, once authenticated (require-app.ts). */
  auth?: Authenticated;
  [key: string]: unknown;
}

/** A request whose response has been sent, as the finish observer sees it. */
export interface FinishedRequest {
  req: IncomingMessage;
  res: ServerResponse;
  locals: RequestLocals;
  latencyMs: number;
}

/** Called once per request when its response is finished (composition.ts: the access log and the app's request log). */
export type OnRequestFinished = (finished: FinishedRequest) => void;

type WithLocals = ServerResponse & { locals?: RequestLocals };

export function localsOf(res: ServerResponse): RequestLocals {
  return (res as WithLocals).locals as RequestLocals;
}

/**
 * Gives a request its id (the caller's, when acceptable) and its start time,
 * and arranges for `onFinished` once the response is done. Used by the
 * express app and by the hot route alike; neither sets a header here, so the
 * hot route can send all of its headers in one writeHead.
 */
export function beginRequest(req: IncomingMessage, res: ServerResponse, onFinished: OnRequestFinished): RequestLocals {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
  const startedAt = process.hrtime.bigint();
  const locals: RequestLocals = Object.assign((res as WithLocals).locals ?? Object.create(null), { requestId, startedAt });
  (res as WithLocals).locals = locals;
  res.once('finish', () => onFinished({ req, res, locals, latencyMs: Math.round(Number(process.hrtime.bigint() - startedAt) / 1e4) / 100 }));
  return locals;
}

/** Headers every response carries, whichever way it is served: its request id, echoed, and CORS. */
export function commonHeaders(requestId: string): OutgoingHttpHeaders {
  return { 'X-Request-Id': requestId, ...CORS_HEADERS };
}

export function setCommonHeaders(res: ServerResponse, requestId: string): void {
  const headers = commonHeaders(requestId);
  for (const name in headers) res.setHeader(name, headers[name] as string);
}

/** The express side of beginRequest, with the common headers set up front. */
export function requestContext(onFinished: OnRequestFinished): RequestHandler {
  return (req, res, next) => {
    setCommonHeaders(res, beginRequest(req, res, onFinished).requestId);
    next();
  };
}

/** The request path without its query string. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
