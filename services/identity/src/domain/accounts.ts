import { alreadyExists, invalidArgument, unauthenticated } from '@sandbox/runtime';
import { DuplicateKeyError } from '../stores/errors';
import type { SessionStore } from '../stores/session-store';
import type { UserRecord, UserStore } from '../stores/user-store';
import { newResourceId } from './credentials';
import { LIMITS } from './limits';
import type { PasswordHasher } from './passwords';
import { SessionTokens } from './session-tokens';
import type { SignInThrottle } from './sign-in-throttle';
import { checkLocalSignIn, checkSignUp, OPEN_SIGN_UP, type SignUpPolicy } from './sign-up-policy';
import { checkPassword, normalizeEmail } from './validation';

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
  now?: () => Date;
}

const LOCAL_PROVIDER = 'password';
const localKey = (email: string) => `${LOCAL_PROVIDER}:${email}`;
const sessionEnded = () => unauthenticated('session_ended', 'The session has ended; sign in again.');
// The same answer for an unknown email and a wrong password.
const badCredentials = () => unauthenticated('invalid_credentials', 'The email or password is not correct.');

/** Portal accounts and their sessions. */
export class AccountService {
  private readonly now: () => Date;
  private readonly signUp: SignUpPolicy;

  constructor(private readonly deps: AccountDeps) {
    this.now = deps.now ?? (() => new Date());
    this.signUp = deps.signUp ?? OPEN_SIGN_UP;
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
      ok = user?.passwordHash
        ? await this.deps.hasher.verify(password, user.passwordHash)
        : await this.deps.hasher.verifyAgainstNothing(password);
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
    return { user, session: await this.startSession(user.id) };
  }

  async logout(token: string): Promise<void> {
    const verified = await this.verifyToken(token);
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
  }

  /** The signed-in user behind a session token, or UNAUTHENTICATED. */
  async verifySession(token: string): Promise<UserRecord> {
    const verified = await this.verifyToken(token);
    if (verified.kind === 'local') {
      const user = await this.deps.users.findById(verified.userId);
      if (!user) throw unauthenticated('invalid_session', 'The session token is not valid; sign in again.');
      return user;
    }
    // First sight of a trusted issuer's user creates the account.
    return this.deps.users.findOrInsert({
      id: newResourceId(),
      key: `${verified.issuer}#${verified.subject}`,
      email: verified.email,
      provider: verified.issuer,
      createdAt: this.now(),
    });
  }

  /** Removes expired sessions (no TTL indexes on FerretDB); sign-in counts expire by themselves. */
  async cleanup(): Promise<void> {
    await this.deps.sessions.deleteExpired(this.now());
  }

  private async verifyToken(token: string) {
    if (token === '') throw unauthenticated('session_required', 'A session token is required: sign in and send it as Authorization: Bearer.');
    if (token.length > LIMITS.sessionTokenMax) throw unauthenticated('invalid_session', 'The session token is not valid; sign in again.');
    const verified = await this.deps.tokens.verify(token);
    const id = verified.kind === 'local' ? verified.sessionId : externalSessionId(verified.tokenDigest);
    const session = await this.deps.sessions.find(id, this.now());
    if (verified.kind === 'local') {
      if (!session || session.kind !== 'active' || session.userId !== verified.userId) throw sessionEnded();
    } else if (session) {
      throw sessionEnded();
    }
    return verified;
  }

  private async startSession(userId: string): Promise<SignedIn['session']> {
    const sessionId = SessionTokens.newSessionId();
    const issued = await this.deps.tokens.issue(userId, sessionId);
    await this.deps.sessions.put({ id: sessionId, userId, expiresAt: issued.expiresAt, kind: 'active' });
    return issued;
  }
}

const externalSessionId = (tokenDigest: string) => `x_${tokenDigest}`;
