import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

export { GrpcStatus };

/** Trailer that carries the machine-readable error code across gRPC. */
export const ERROR_CODE_KEY = 'error-code';
/** Trailer that carries how many seconds a caller should wait before trying again (HTTP Retry-After). */
export const RETRY_AFTER_KEY = 'retry-after';
/**
 * Trailer that carries the challenges a refusal sends (HTTP WWW-Authenticate),
 * one value each. Binary (-bin), so each value is base64 on the wire: HTTP/2
 * joins repeated trailers with ", ", which challenges contain, and grpc-js
 * splits only binary values apart again.
 */
export const CHALLENGE_KEY = 'www-authenticate-bin';

/**
 * The one error type domain code throws. `status` is what the caller gets over
 * gRPC (and, through the gateway's one table, the HTTP status); `code` is the
 * machine-readable reason; `message` is safe to show to the client.
 */
export class AppError extends Error {
  override name = 'AppError';
  /** Whole seconds until a retry can succeed, when the refusal knows it (a throttle): HTTP Retry-After. */
  retryAfterSeconds?: number;
  /**
   * How to authenticate instead, for a 401: HTTP WWW-Authenticate (RFC 9110
   * 11.6.1). Several challenges (Digest's SHA-256 and MD5) are sent as
   * separate header lines, which every client parses.
   */
  challenge?: string | readonly string[];
  constructor(
    readonly status: GrpcStatus,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** The same error, saying when to try again. */
  retryAfter(seconds: number): this {
    this.retryAfterSeconds = Math.max(1, Math.ceil(seconds));
    return this;
  }

  /** The same error, with the challenge a client should answer. */
  withChallenge(challenge: string | readonly string[]): this {
    this.challenge = challenge;
    return this;
  }
}

export const invalidArgument = (code: string, message: string) => new AppError(GrpcStatus.INVALID_ARGUMENT, code, message);
export const notFound = (code: string, message: string) => new AppError(GrpcStatus.NOT_FOUND, code, message);
export const unauthenticated = (code: string, message: string) => new AppError(GrpcStatus.UNAUTHENTICATED, code, message);
export const permissionDenied = (code: string, message: string) => new AppError(GrpcStatus.PERMISSION_DENIED, code, message);
export const alreadyExists = (code: string, message: string) => new AppError(GrpcStatus.ALREADY_EXISTS, code, message);
export const failedPrecondition = (code: string, message: string) => new AppError(GrpcStatus.FAILED_PRECONDITION, code, message);
export const resourceExhausted = (code: string, message: string) => new AppError(GrpcStatus.RESOURCE_EXHAUSTED, code, message);
export const unavailable = (code: string, message: string) => new AppError(GrpcStatus.UNAVAILABLE, code, message);

/** Server side: an AppError as a gRPC error with its code in the trailers. */
export function toServiceError(error: AppError): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_KEY, error.code);
  if (error.retryAfterSeconds !== undefined) metadata.set(RETRY_AFTER_KEY, String(error.retryAfterSeconds));
  for (const challenge of typeof error.challenge === 'string' ? [error.challenge] : (error.challenge ?? []))
    metadata.add(CHALLENGE_KEY, Buffer.from(challenge, 'utf8'));
  return { code: error.status, details: error.message, metadata };
}

/** What a caller is told to wait when a service cannot be reached (HTTP Retry-After). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/**
 * A store a service needs (MongoDB, Redis) does not answer. The message names
 * the store, since the service itself is up and every route that does not
 * need the store keeps working; the wait is a service's, a store restarting
 * being back as soon.
 */
export const storeUnavailable = (code: string, store: string) =>
  unavailable(code, `${store} is unavailable; the routes that do not need it keep working. Try again shortly.`).retryAfter(UNAVAILABLE_RETRY_AFTER_SECONDS);

/** Client side: a gRPC failure back as an AppError, whatever produced it. */
export function fromServiceError(error: ServiceError, peer: string): AppError {
  const code = error.metadata?.get(ERROR_CODE_KEY)[0];
  if (typeof code === 'string') {
    const appError = new AppError(error.code, code, error.details);
    const retryAfter = Number(error.metadata.get(RETRY_AFTER_KEY)[0]);
    if (Number.isInteger(retryAfter) && retryAfter > 0) appError.retryAfter(retryAfter);
    const challenges = error.metadata.get(CHALLENGE_KEY).map((value) => (Buffer.isBuffer(value) ? value.toString('utf8') : value));
    if (challenges.length) appError.withChallenge(challenges.length === 1 ? challenges[0] : challenges);
    return appError;
  }
  switch (error.code) {
    case GrpcStatus.UNAVAILABLE:
      // Only the routes that need this service fail; a replica restarting is back within seconds.
      return new AppError(
        GrpcStatus.UNAVAILABLE,
        'service_unavailable',
        `The ${peer} service is unavailable; the routes that do not need it keep working.`,
      ).retryAfter(UNAVAILABLE_RETRY_AFTER_SECONDS);
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new AppError(GrpcStatus.DEADLINE_EXCEEDED, 'upstream_timeout', `The ${peer} service did not answer in time.`);
    case GrpcStatus.CANCELLED:
      return new AppError(GrpcStatus.CANCELLED, 'cancelled', 'The request was cancelled.');
    case GrpcStatus.UNIMPLEMENTED:
      return new AppError(GrpcStatus.UNIMPLEMENTED, 'not_implemented', `The ${peer} service does not offer this yet.`);
    case GrpcStatus.NOT_FOUND:
      return new AppError(GrpcStatus.NOT_FOUND, 'not_found', error.details);
    default:
      // Whatever it was, the caller learns nothing about our internals.
      return new AppError(GrpcStatus.INTERNAL, 'internal', 'An internal error occurred.');
  }
}

/**
 * A refusal whose HTTP status has no gRPC equivalent (413, 415, 405...),
 * with any headers it must carry. Still an AppError, so the gateway renders
 * it like every other refusal; the playground, which answers HTTP inside a
 * gRPC message, renders its status as it is.
 */
export class HttpRefusal extends AppError {
  override name = 'HttpRefusal';
  constructor(
    readonly httpStatus: number,
    code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(GrpcStatus.INVALID_ARGUMENT, code, message);
  }
}

/** The project's one error body (docs/errors.md): what every non-OAuth refusal answers, from any service. */
export interface ApiErrorBody {
  error: { code: string; message: string; requestId: string };
}

export const apiErrorBody = (code: string, message: string, requestId: string): ApiErrorBody => ({ error: { code, message, requestId } });
