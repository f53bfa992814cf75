import { challenges } from '@sandbox/contracts';
import { apiErrorBody, AppError, GrpcStatus, HttpRefusal, type Logger } from '@sandbox/runtime';
import { httpStatusFromGrpc } from './http-status';
import type { ErrorFormat } from './route';
import { json, type Reply } from './reply';

/** Thrown for a bad HTTP-level input, so every 400 has one look. */
export const badRequest = (code: string, message: string) => new AppError(GrpcStatus.INVALID_ARGUMENT, code, message);

/** RFC 6749 5.2, RFC 7009 and RFC 7662 error values: passed through as they are on the OAuth endpoints. */
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'unsupported_token_type',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
]);

/** The body of a refusal in the route's format. */
function errorBody(format: ErrorFormat, status: number, code: string, message: string, requestId: string): unknown {
  if (format === 'api') return apiErrorBody(code, message, requestId);
  // RFC 6749 5.2: a registered error value; anything the edge itself refused is an invalid request, except
  // a 429 (a rate limit): the request was fine, so temporarily_unavailable (4.1.2.1), as for a 503.
  const error = OAUTH_ERRORS.has(code)
    ? code
    : status === 429 || status === 503
      ? 'temporarily_unavailable'
      : status >= 500
        ? 'server_error'
        : 'invalid_request';
  return { error, error_description: message };
}

/** A refusal the edge makes itself (404, 405, 413...): the route's format, or the API's where no route matched. */
export function refusal(status: number, code: string, message: string, requestId: string, format: ErrorFormat = 'api'): Reply {
  return json(errorBody(format, status, code, message, requestId), status);
}

/**
 * Any failure as an answer in the route's error format: the one place errors
 * become HTTP. An AppError keeps its code and message and brings its typed
 * details (challenge, Retry-After); anything else is a 500 whose details go to
 * the log only.
 */
export function errorReply(error: unknown, format: ErrorFormat, requestId: string, logger: Logger, where: { method: string; path: string }): Reply {
  if (!(error instanceof AppError)) {
    logger.error({ requestId, err: error, ...where }, 'unhandled error');
    return refusal(500, 'internal', 'An internal error occurred.', requestId, format);
  }
  const status = error instanceof HttpRefusal ? error.httpStatus : httpStatusFromGrpc(error.status);
  const reply = refusal(status, error.code, error.message, requestId, format);
  if (error instanceof HttpRefusal) Object.assign(reply.headers, error.headers);
  // A 401 must say how to authenticate (RFC 9110 15.5.2); an OAuth endpoint's refusal brings its own when it has one.
  const challenge = error.challenge ?? (status === 401 && format === 'api' ? challenges.CHALLENGE.bearer : undefined);
  if (challenge !== undefined) reply.headers['WWW-Authenticate'] = typeof challenge === 'string' ? challenge : [...challenge];
  if (error.retryAfterSeconds !== undefined) reply.headers['Retry-After'] = String(error.retryAfterSeconds);
  if (status >= 500) logger.warn({ requestId, code: error.code, ...where }, error.message);
  return reply;
}
