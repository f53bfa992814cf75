import { challenges } from '@sandbox/contracts';
import { AppError, GrpcStatus } from '@sandbox/runtime';

/** The RFC 6749 error values the OAuth 2.0 endpoints answer with (5.2, 4.1.2.1). */
export type OAuth2ErrorCode =
  'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'unsupported_response_type' | 'invalid_scope';

/** What a client that authenticated with Basic (or not at all) is told to answer (RFC 6749 5.2, RFC 9110 11.6.1). */
export const BASIC_CHALLENGE = challenges.CHALLENGE.basic;

/**
 * RFC 6749 5.2 and 4.1.2.1 allow only %x20-21 / %x23-5B / %x5D-7E in
 * error_description (printable ASCII without `"` and `\`); RFC 6750 3 says the
 * same of a Bearer challenge. Every message passes through this, so a value a
 * learner sent can never break the rule (or a header) when it is quoted back.
 */
export function describable(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}

/** A refusal the gateway answers with 400 and this error value. */
export function oauthError(code: Exclude<OAuth2ErrorCode, 'invalid_client'>, message: string): AppError {
  return new AppError(GrpcStatus.INVALID_ARGUMENT, code, describable(message));
}

/**
 * 401 invalid_client. RFC 6749 5.2 requires a WWW-Authenticate challenge when
 * the client tried the Authorization header; we also send it when the client
 * sent no credentials at all (it names the scheme to use, and RFC 9110 wants a
 * challenge on every 401). A client that used the body fields gets none.
 */
export function invalidClient(message: string, method: string): AppError {
  const error = new AppError(GrpcStatus.UNAUTHENTICATED, 'invalid_client', describable(message));
  return method === 'body' ? error : error.withChallenge(BASIC_CHALLENGE);
}
