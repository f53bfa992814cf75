import { invalidArgument, permissionDenied } from '@sandbox/runtime';
import type { AuditActor } from '../stores/audit-store';
import type { SessionUser } from './accounts';

/** What an admin call carries (the proto's OperatorCredential). */
export interface OperatorCredential {
  sessionToken: string;
  statedUser: string;
}

/** The certificate identity of the operators' CLI (packages/contracts callers.ts). */
const CLI = 'cli';
/** The longest stated user kept: "<os user>@<host>" (a host name is at most 253). */
const STATED_USER_MAX = 320;
const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/;

/**
 * Who does an operator's action, as identity verifies it itself rather than
 * as a caller names it (docs/security.md, "Operator actions"): the callers
 * table already keeps every process but the gateway and the CLI away from the
 * admin RPCs; this keeps a gateway (or anything holding its certificate) from
 * acting without an operator behind it.
 *
 * - A session token: identity verifies it as it does any session (signature,
 *   expiry, sign-out, a disabled account, an identity provider's token) and
 *   requires its user to be an operator now. The actor is that user.
 * - No session, from the CLI's own certificate: the actor is the CLI, by that
 *   certificate; the OS user it says it runs as is kept beside, marked stated.
 * - Anything else is refused, reads included: an operator's view lists every
 *   user's email.
 */
export class OperatorActors {
  constructor(private readonly sessions: { verifySession(token: string): Promise<SessionUser> }) {}

  async verify(credential: OperatorCredential | undefined, caller: string | undefined): Promise<AuditActor> {
    if (credential && credential.sessionToken !== '') {
      const { user, operator } = await this.sessions.verifySession(credential.sessionToken);
      if (!operator)
        throw permissionDenied('operator_required', "This session's user is not an operator (OPERATOR_EMAILS or OPERATOR_GROUPS names operators).");
      return { kind: 'session', id: user.id, email: user.email };
    }
    if (caller === CLI) return { kind: 'cli', id: CLI, email: '', statedUser: statedUser(credential?.statedUser ?? '') };
    throw permissionDenied(
      'operator_required',
      caller === undefined
        ? "An operator's action needs a signed-in operator's session. Without mutual TLS (GRPC_TLS) no certificate tells the admin CLI apart: use the admin API with an operator's token."
        : "An operator's action needs a signed-in operator's session, passed on by the gateway, or the admin CLI's own certificate.",
    );
  }
}

function statedUser(text: string): string {
  if (text.length > STATED_USER_MAX || !PRINTABLE.test(text)) {
    throw invalidArgument(
      'invalid_stated_user',
      `The CLI's stated user ("<os user>@<host>") is longer than ${STATED_USER_MAX} characters or holds control characters.`,
    );
  }
  return text;
}
