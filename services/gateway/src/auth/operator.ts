import { AppError, GrpcStatus, type Logger } from '@sandbox/runtime';
import type { RouteContext } from '../http/context';
import type { MaybePromise } from '../maybe-async';
import type { Authenticator } from './authenticate';
import type { Credential } from './scheme';

const SESSION_ONLY = ['portal_session'] as const;

/**
 * Whether the request carries the portal session of an operator (identity
 * says so on every check: sessions are never remembered). Never refuses:
 * no session, a bad or ended one, a disabled account's, a learner's, and
 * identity being unreachable are all "no", so the caller can answer as if
 * there were nothing here. Only the last is logged, for the operator who
 * then meets a 404. Sets ctx.credential when the answer is yes.
 */
export function isOperator(authenticator: Authenticator, ctx: RouteContext, logger: Logger): MaybePromise<boolean> {
  if (!ctx.headers.authorization) return false;
  const no = (error: unknown) => {
    ctx.credential = undefined;
    const status = error instanceof AppError ? error.status : undefined;
    if (status !== GrpcStatus.UNAUTHENTICATED && status !== GrpcStatus.PERMISSION_DENIED) {
      logger.warn(
        { requestId: ctx.requestId, err: error instanceof Error ? error.message : String(error) },
        'operator session not checked: answered as not an operator',
      );
    }
    return false;
  };
  const yes = (credential: Credential) => {
    if (credential.kind === 'session' && credential.operator) return true;
    ctx.credential = undefined;
    return false;
  };
  try {
    const verdict = authenticator.authenticate(ctx, SESSION_ONLY);
    return verdict instanceof Promise ? verdict.then(yes, no) : yes(verdict);
  } catch (error) {
    return no(error);
  }
}
