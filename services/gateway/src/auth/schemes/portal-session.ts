import type { RequestHandler, Response } from 'express';
import type { identity } from '@sandbox/contracts';
import { AppError, GrpcStatus, unauthenticated } from '@sandbox/runtime';
import type { GatewayDeps } from '../deps';

const REALM = 'Bearer realm="training-sandbox-portal"';

/** A 401 that tells the caller which scheme to use (RFC 6750), with error=invalid_token when a token was sent. */
function challenged(error: AppError, tokenSent: boolean): AppError {
  return Object.assign(error, { challenge: tokenSent ? `${REALM}, error="invalid_token"` : REALM });
}

/**
 * Portal session authentication: `Authorization: Bearer <session JWT>` from
 * POST /api/auth/login (or a trusted identity provider), checked by identity on
 * every request (no cache, so sign-out takes effect at once). Sets
 * res.locals.user and res.locals.sessionToken.
 */
export function requireSession(deps: GatewayDeps): RequestHandler {
  return async (req, res, next) => {
    const match = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(req.get('authorization') ?? '');
    if (!match) {
      throw challenged(
        unauthenticated('session_required', 'Sign in first: send the token from POST /api/auth/login as Authorization: Bearer <token>.'),
        false,
      );
    }
    try {
      const { user } = await deps.clients.identity.verifySession({ token: match[1] }, { requestId: res.locals.requestId });
      res.locals.user = user;
      res.locals.sessionToken = match[1];
    } catch (error) {
      if (error instanceof AppError && error.status === GrpcStatus.UNAUTHENTICATED) throw challenged(error, true);
      throw error;
    }
    next();
  };
}

/** The signed-in user, as set by requireSession. */
export function sessionUser(res: Response): identity.User {
  return res.locals.user as identity.User;
}

/** Session tokens and credentials must never sit in a cache. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
