import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '@sandbox/runtime';

const REQUEST_ID_HEADER = 'X-Request-Id';
/** A caller-supplied id is kept only when it is short and plain, so it is safe in logs and headers. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's, when acceptable), echoes it in a
 * header, and logs one line when the response is done: method, path without
 * the query (it may hold an api_key), status, latency. Never headers or bodies.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get(REQUEST_ID_HEADER);
    const requestId = incoming && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    res.locals.requestId = requestId;
    res.locals.startedAt = started;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info({ requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
    });
    next();
  };
}
