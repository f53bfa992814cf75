import { createHash } from 'node:crypto';
import { alreadyExists, invalidArgument, permissionDenied, ShortLivedCache, unauthenticated } from '@sandbox/runtime';
import { DuplicateKeyError } from '../stores/errors';
import type { SessionStore } from '../stores/session-store';
import type { UserRecord, UserStore } from '../stores/user-store';
import { newResourceId } from './credentials';
import { LIMITS } from './limits';
import { groupsOf, isOperator, NO_OPERATORS, type OperatorRule } from './operators';
import type { PasswordHasher } from './passwords';
import { SessionTokens } from './session-tokens';
import type { SignInThrottle } from './sign-in-throttle';
import { checkLocalSignIn, checkSignUp, OPEN_SIGN_UP, type SignUpPolicy } from './sign-up-policy';
import { checkPassword, normalizeEmail } from './validation';

/** A verified session's user, and whether they are an operator (operators.ts). */
export interface SessionUser {
  user: UserRecord;
  operator: boolean;
}

export interface SignedIn {
  user: UserRecord;
  session: { token: string; expiresAt: Date };
}

export interface AccountDeps {
  users: UserStore;
  sessions: SessionStore;
  /** Failed sign-ins, counted per address and per account (sign-in-throttle.ts). */
  throttle: SignInThrottle;
  hasher: PasswordHasher;
  tokens: SessionTokens;
  /** Who may sign up and sign in with a password (sign-up-policy.ts); open by default. */
  signUp?: SignUpPolicy;
  /** Who is an operator; nobody by default. */
  operators?: OperatorRule;
  /**
   * How long a verified session is remembered (VERIFICATION_CACHE_MS, as the
   * credential cache); 0 reads the store on every check.
   */
  sessionCacheMs?: number;
  /** Tells every replica that sessions changed (a sign-out, an account deleted): the change feed's `sessions`. */
  onSessionsChange?: () => Promise<void>;
  now?: () => Date;
}

/** How stale lastSeenAt may get before a session check writes it again: one write per user per interval, not per request. */
export const LAST_SEEN_EVERY_MS = 60_000;
/** How long a deleted external user's older tokens stay refused: longer than any ID token an identity provider issues. */
export const DELETED_USER_MEMORY_MS = 24 * 3600_000;

/** The record that refuses a deleted external user's older tokens, keyed by the account's key (issuer#subject). */
export const deletedUserRecordId = (userKey: string) => `d_${createHash('sha256').update(userKey).digest('base64url')}`;

export const accountDisabled = () =>
  permissionDenied('account_disabled', 'An operator has disabled this account: ask whoever runs this sandbox to enable it again.');

const LOCAL_PROVIDER = 'password';
const localKey = (email: string) => `${LOCAL_PROVIDER}:${email}`;
const sessionEnded = () => unauthenticated('session_ended', 'The session has ended; sign in again.');
// The same answer for an unknown email and a wrong password.
const badCredentials = () => unauthenticated('invalid_credentials', 'The email or password is not correct.');

/** Portal accounts and their sessions. */
export class AccountService {
  private readonly now: () => Date;
  private readonly operators: OperatorRule;
  /** Who may sign up and whether passwords sign in: what the portal's sign-in screen offers. */
  readonly signUp: SignUpPolicy;
  /**
   * Sessions verified a moment ago, by session id (or, for a trusted
   * issuer's token, its digest): a portal read costs no session or user
   * read. Only acceptances are kept (a refusal is an error, never
   * remembered); the token's signature and expiry are checked on every
   * call; everything is dropped on any replica's `sessions` or `apps` change
   * (sign-out, an account disabled, enabled or deleted) through the change
   * feed (docs/state.md, "Caches").
   */
  private readonly verified: ShortLivedCache<SessionUser>;

  constructor(private readonly deps: AccountDeps) {
    this.now = deps.now ?? (() => new Date());
    this.operators = deps.operators ?? NO_OPERATORS;
    this.signUp = deps.signUp ?? OPEN_SIGN_UP;
    this.verified = new ShortLivedCache({ ttlMs: deps.sessionCacheMs ?? 0, clock: () => this.now().getTime() });
  }

  /** Forgets every remembered session; called on every `sessions` and `apps` change, on any replica. */
  forgetSessions(): void {
    this.verified.clear();
  }

  async register(emailInput: string, password: string): Promise<SignedIn> {
    const email = normalizeEmail(emailInput);
    checkSignUp(this.signUp, email);
    checkPassword(password);
    const user: UserRecord = {
      id: newResourceId(),
      key: localKey(email),
      email,
      provider: LOCAL_PROVIDER,
      passwordHash: await this.deps.hasher.hash(password),
      createdAt: this.now(),
    };
    user.lastSeenAt = user.createdAt;
    try {
      await this.deps.users.insert(user);
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw alreadyExists('email_taken', 'An account with this email already exists; sign in instead.');
      throw error;
    }
    return { user, session: await this.startSession(user.id) };
  }

  /**
   * `clientAddress` is where the sign-in came from, as the gateway saw it:
   * failures are limited per address and only slow down per account, so
   * nobody elsewhere can lock the owner out (docs/security.md).
   */
  async login(emailInput: string, password: string, clientAddress: string): Promise<SignedIn> {
    checkLocalSignIn(this.signUp);
    const email = normalizeEmail(emailInput);
    if (password === '') throw invalidArgument('password_required', 'password is required.');
    if ([...password].length > LIMITS.passwordMax) throw badCredentials();
    const attempt = await this.deps.throttle.admit(email, clientAddress);
    let user: UserRecord | undefined;
    let ok: boolean;
    try {
      user = await this.deps.users.findByKey(localKey(email));
      ok = user?.passwordHash ? await this.deps.hasher.verify(password, user.passwordHash) : await this.deps.hasher.verifyAgainstNothing(password);
    } catch (error) {
      // Undecided (server_busy, database unavailable): not a failure of anyone's.
      await attempt.abandoned();
      throw error;
    }
    if (!user || !ok) {
      attempt.failed();
      throw badCredentials();
    }
    await attempt.succeeded();
    // Only after the password matched: a disabled account is no secret to whoever knows its password.
    if (user.disabledAt) throw accountDisabled();
    await this.seen(user, isOperator(this.operators, user.email));
    return { user, session: await this.startSession(user.id) };
  }

  async logout(token: string): Promise<void> {
    const verified = await this.checkToken(token);
    await this.checkSession(verified);
    if (verified.kind === 'local') {
      await this.deps.sessions.delete(verified.sessionId);
    } else {
      // A trusted issuer's token cannot be recalled; remember it as signed out until it expires.
      await this.deps.sessions.put({
        id: externalSessionId(verified.tokenDigest),
        userId: verified.subject,
        expiresAt: verified.expiresAt,
        kind: 'revoked',
      });
    }
    await this.sessionsChanged();
  }

  /**
   * The signed-in user behind a session token and whether they are an
   * operator; UNAUTHENTICATED, or PERMISSION_DENIED account_disabled.
   */
  async verifySession(token: string): Promise<SessionUser> {
    const verified = await this.checkToken(token);
    const key = verified.kind === 'local' ? `s:${verified.sessionId}` : `x:${verified.tokenDigest}`;
    return this.verified.get(key, () => this.sessionUser(verified));
  }

  /** Drops this replica's remembered sessions and tells the others. */
  private async sessionsChanged(): Promise<void> {
    this.forgetSessions();
    await this.deps.onSessionsChange?.();
  }

  /** The session's user from the store: what verifySession remembers. */
  private async sessionUser(verified: VerifiedToken): Promise<SessionUser> {
    await this.checkSession(verified);
    let user: UserRecord | undefined;
    if (verified.kind === 'local') {
      user = await this.deps.users.findById(verified.userId);
      if (!user) throw unauthenticated('invalid_session', 'The session token is not valid; sign in again.');
    } else {
      // First sight of a trusted issuer's user creates the account.
      const now = this.now();
      user = await this.deps.users.findOrInsert({
        id: newResourceId(),
        key: `${verified.issuer}#${verified.subject}`,
        email: verified.email,
        provider: verified.issuer,
        createdAt: now,
        lastSeenAt: now,
      });
    }
    if (user.disabledAt) throw accountDisabled();
    const operator = isOperator(this.operators, user.email, verified.kind === 'external' ? verified.claims : undefined);
    const groups = verified.kind === 'external' ? groupsOf(this.operators, verified.claims) : undefined;
    await this.seen(user, operator, groups);
    return { user: groups === undefined ? user : { ...user, groups }, operator };
  }

  /**
   * Keeps lastSeenAt (written at most every LAST_SEEN_EVERY_MS, not on every
   * request), the operator mark and an identity provider's user's groups
   * (each written only when it changes) up to date, for the operators' user
   * list, for purges, which spare operators, and for a class's SSO group.
   */
  private async seen(user: UserRecord, operator: boolean, groups?: string[]): Promise<void> {
    const now = this.now();
    const stale = !user.lastSeenAt || now.getTime() - user.lastSeenAt.getTime() >= LAST_SEEN_EVERY_MS;
    const groupsChanged = groups !== undefined && (user.groups ?? []).join('\n') !== groups.join('\n');
    if (!stale && (user.operator ?? false) === operator && !groupsChanged) return;
    await this.deps.users.update(user.id, { operator, ...(stale ? { lastSeenAt: now } : {}), ...(groupsChanged ? { groups } : {}) });
  }

  /** Removes expired sessions (no TTL indexes on FerretDB); sign-in counts expire by themselves. */
  async cleanup(): Promise<void> {
    await this.deps.sessions.deleteExpired(this.now());
  }

  /** The token's signature and expiry: no store read, so checked on every call. */
  private async checkToken(token: string): Promise<VerifiedToken> {
    if (token === '') throw unauthenticated('session_required', 'A session token is required: sign in and send it as Authorization: Bearer.');
    if (token.length > LIMITS.sessionTokenMax) throw unauthenticated('invalid_session', 'The session token is not valid; sign in again.');
    return this.deps.tokens.verify(token);
  }

  /** Whether the session still stands in the store: not signed out, not of a deleted account. */
  private async checkSession(verified: VerifiedToken): Promise<void> {
    const id = verified.kind === 'local' ? verified.sessionId : externalSessionId(verified.tokenDigest);
    const session = await this.deps.sessions.find(id, this.now());
    if (verified.kind === 'local') {
      if (!session || session.kind !== 'active' || session.userId !== verified.userId) throw sessionEnded();
    } else if (session) {
      throw sessionEnded();
    } else {
      const deleted = await this.deps.sessions.find(deletedUserRecordId(`${verified.issuer}#${verified.subject}`), this.now());
      if (deleted?.issuedBefore && (!verified.issuedAt || verified.issuedAt < deleted.issuedBefore)) {
        throw unauthenticated('account_deleted', 'An operator deleted this account; sign in through the identity provider again to start a new one.');
      }
    }
  }

  private async startSession(userId: string): Promise<SignedIn['session']> {
    const sessionId = SessionTokens.newSessionId();
    const issued = await this.deps.tokens.issue(userId, sessionId);
    await this.deps.sessions.put({ id: sessionId, userId, expiresAt: issued.expiresAt, kind: 'active' });
    return issued;
  }
}

const externalSessionId = (tokenDigest: string) => `x_${tokenDigest}`;

type VerifiedToken = Awaited<ReturnType<SessionTokens['verify']>>;
