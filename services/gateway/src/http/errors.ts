import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, GrpcStatus, type Logger } from '@sandbox/runtime';
import { httpStatusFromGrpc } from './http-status';

/**
 * The one error shape of the API (OAuth endpoints excepted, which answer RFC 6749):
 *   {"error": {"code": "not_found", "message": "…", "requestId": "…"}}
 */
export function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  const requestId = (res as ServerResponse & { locals?: { requestId?: string } }).locals?.requestId;
  const body = JSON.stringify({ error: { code, message, requestId } });
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** body-parser's failures carry `type` and a safe `status`; these become our codes. */
const BODY_ERRORS: Record<string, string> = {
  'entity.parse.failed': 'malformed_body',
  'entity.too.large': 'body_too_large',
  'encoding.unsupported': 'unsupported_encoding',
  'charset.unsupported': 'unsupported_charset',
  'request.aborted': 'request_aborted',
  'request.size.invalid': 'malformed_body',
};

interface HttpishError {
  type?: string;
  status?: number;
  expose?: boolean;
  message?: string;
}

/** Any failure as a response in the one shape; the only place errors become HTTP. */
export function renderError(res: ServerResponse, error: unknown, logger: Logger, where: { method?: string; path: string }): void {
  const requestId = (res as ServerResponse & { locals?: { requestId?: string } }).locals?.requestId;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof AppError) {
    const status = httpStatusFromGrpc(error.status);
    if (status === 401 && !res.getHeader('WWW-Authenticate')) {
      // Set by the credential verifier when it knows more (RFC 6750 error=…).
      const challenge = (error as AppError & { challenge?: string }).challenge;
      res.setHeader('WWW-Authenticate', challenge ?? 'Bearer realm="training-sandbox"');
    }
    if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
    if (status >= 500) logger.warn({ requestId, code: error.code }, error.message);
    sendError(res, status, error.code, error.message);
    return;
  }
  const httpish = error as HttpishError;
  if (httpish && typeof httpish.status === 'number' && httpish.status >= 400 && httpish.status < 500 && httpish.expose !== false) {
    const code = BODY_ERRORS[httpish.type ?? ''] ?? 'bad_request';
    const message =
      code === 'malformed_body'
        ? `The request body is not valid JSON: ${httpish.message}`
        : code === 'body_too_large'
          ? 'The request body is larger than this endpoint accepts.'
          : (httpish.message ?? 'Bad request.');
    sendError(res, httpish.status, code, message);
    return;
  }
  logger.error({ requestId, err: error, ...where }, 'unhandled error');
  sendError(res, 500, 'internal', 'An internal error occurred.');
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => renderError(res, error, logger, { method: req.method, path: req.path });
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, 404, 'not_found', `No endpoint at ${req.method} ${req.path}. GET / lists the API.`);
};

/** Thrown by handlers for a bad HTTP-level input, so every 400 has one look. */
export const badRequest = (code: string, message: string) => new AppError(GrpcStatus.INVALID_ARGUMENT, code, message);
