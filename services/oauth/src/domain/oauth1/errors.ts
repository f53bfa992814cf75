import { challenges } from '@sandbox/contracts';
import { AppError, GrpcStatus } from '@sandbox/runtime';

/**
 * The oauth_problem values of the OAuth Problem Reporting extension that RFC
 * 5849 points to: the first four are the client's request being malformed
 * (400), the rest a credential refused (401).
 */
export type OAuth1Problem =
  | 'parameter_absent'
  | 'parameter_rejected'
  | 'signature_method_rejected'
  | 'version_rejected'
  | 'consumer_key_unknown'
  | 'consumer_key_rejected'
  | 'token_rejected'
  | 'token_expired'
  | 'token_used'
  | 'signature_invalid'
  | 'timestamp_refused'
  | 'nonce_used'
  | 'verifier_invalid';

const MALFORMED: ReadonlySet<OAuth1Problem> = new Set(['parameter_absent', 'parameter_rejected', 'signature_method_rejected', 'version_rejected']);

/** The WWW-Authenticate challenge of a 401 (RFC 5849 3.5.1 scheme, the problem named as the extension does). */
export const challengeFor = (problem: OAuth1Problem) => challenges.oauth1ProblemChallenge(problem);

/**
 * A refusal: INVALID_ARGUMENT (400) for a malformed request, UNAUTHENTICATED
 * (401, with the challenge) for a refused credential; `code` is the
 * oauth_problem value, the message the rule that failed in words a learner
 * can act on, never a secret nor the value the server expected.
 */
export function oauth1Problem(problem: OAuth1Problem, message: string): AppError {
  if (MALFORMED.has(problem)) return new AppError(GrpcStatus.INVALID_ARGUMENT, problem, message);
  return new AppError(GrpcStatus.UNAUTHENTICATED, problem, message).withChallenge(challengeFor(problem));
}

/** Whether an error is a refused credential (as opposed to a malformed request, or a failure of ours). */
export const isRefusal = (error: unknown): error is AppError => error instanceof AppError && error.status === GrpcStatus.UNAUTHENTICATED;
