import type { ChangeFeed } from '@sandbox/runtime';
import type { EphemeralStore } from '../../stores/ephemeral-store';
import type { Clock } from '../clock';
import { putRecord, readRecord, recordEntry } from '../stored-records';
import { storageHash } from './secrets';

/**
 * Everything OAuth 2.0 keeps, and for how long. Access tokens are not here:
 * they are signed JWTs, checked by signature, and only their revocations are
 * kept (until they expire), so issuing them writes nothing.
 *
 * | key (after the store's own prefix)   | value       | lives                                            |
 * |--------------------------------------|-------------|--------------------------------------------------|
 * | oauth2:code:<sha256 of code>         | CodeRecord  | 60 s + LATE_GRACE                                 |
 * | oauth2:code-used:<sha256 of code>    | CodeUse     | the access token lifetime (>= 60 s)               |
 * | oauth2:rt:<sha256 of refresh token>  | RefreshRecord | refresh lifetime + LATE_GRACE                   |
 * | oauth2:rt-used:<sha256 of rt>        | RefreshUse  | the rest of that refresh token's record           |
 * | oauth2:revoked-grant:<grant id>      | Revocation  | max(refresh, access lifetime) + LATE_GRACE        |
 * | oauth2:revoked-jti:<jti>             | Revocation  | until the token's exp + LATE_GRACE                |
 *
 * Lifetimes are decided by the injected clock from the times inside each
 * record; the store's TTL only returns the memory afterwards (a little later,
 * LATE_GRACE, so a late attempt hears "expired" rather than "unknown").
 */
export const CODE_LIFETIME_MS = 60_000;
const LATE_GRACE_MS = 60_000;

const KEY = {
  code: (code: string) => `oauth2:code:${storageHash(code)}`,
  codeUsed: (code: string) => `oauth2:code-used:${storageHash(code)}`,
  refresh: (token: string) => `oauth2:rt:${storageHash(token)}`,
  refreshUsed: (token: string) => `oauth2:rt-used:${storageHash(token)}`,
  revokedGrant: (grantId: string) => `oauth2:revoked-grant:${grantId}`,
  revokedJti: (jti: string) => `oauth2:revoked-jti:${jti}`,
};

/** What an authorization code stands for (RFC 6749 4.1.2: bound to client, redirect URI, scope; RFC 7636: challenge). */
export interface CodeRecord {
  clientId: string;
  /** Where the code was delivered. */
  redirectUri: string;
  /** Whether the authorization request named it (RFC 6749 4.1.3: then the token request must repeat it). */
  redirectUriSent: boolean;
  scope: string[];
  /** The S256 code_challenge, or '' when the request had none. */
  challenge: string;
  issuedAt: number;
  expiresAt: number;
}

/** The mark a redeemed code leaves, naming the grant to revoke if it is presented again (RFC 6819 4.4.1.1). */
export interface CodeUse {
  clientId: string;
  grantId: string;
  redeemedAt: number;
}

/**
 * One refresh token of a grant (its "family"): every rotation issues a new
 * one with the same grantId, sub and grantScope.
 */
export interface RefreshRecord {
  grantId: string;
  clientId: string;
  sub: string;
  /** What this token's access tokens carried. */
  scope: string[];
  /** What the code granted: a refresh may ask for any part of it, never more (RFC 6749 6). */
  grantScope: string[];
  issuer: string;
  issuedAt: number;
  expiresAt: number;
}

/** A refresh token about to be issued, and what it will stand for. */
export interface IssuedRefresh {
  token: string;
  record: RefreshRecord;
}

export interface RefreshUse {
  usedAt: number;
}

export interface Revocation {
  /** Why, in words for a learner: it becomes part of the refusal. */
  reason: string;
  at: number;
}

/** The OAuth 2.0 records in the ephemeral store (Redis shared by replicas, or memory). */
export class GrantState {
  constructor(
    private readonly store: EphemeralStore,
    private readonly clock: Clock,
    /** Told of each revocation before it is answered, so every gateway drops the verdicts it remembers (runtime change-feed.ts). */
    private readonly changes?: Pick<ChangeFeed, 'publish'>,
  ) {}

  async saveCode(code: string, record: CodeRecord): Promise<void> {
    await putRecord(this.store, KEY.code(code), record, record.expiresAt - this.clock() + LATE_GRACE_MS);
  }

  findCode(code: string): Promise<CodeRecord | undefined> {
    return readRecord(this.store, KEY.code(code));
  }

  /**
   * Redeems the code, once, saving the grant's first refresh token in the same
   * atomic step: SET NX on its used-mark, so of two replicas (or two requests)
   * redeeming it at once exactly one wins. False: it was redeemed already.
   */
  async redeemCode(code: string, use: CodeUse, keepMs: number, refresh: IssuedRefresh): Promise<boolean> {
    const won = await this.store.claimAndPut(recordEntry(KEY.codeUsed(code), use, keepMs), this.refreshEntry(refresh));
    if (won) {
      // Tidying only: the used-mark already refuses the code, and the record expires in a minute.
      // A failure here must not turn a redemption that happened into an error its client would retry.
      await this.store.delete(KEY.code(code)).catch(() => undefined);
    }
    return won;
  }

  codeUse(code: string): Promise<CodeUse | undefined> {
    return readRecord(this.store, KEY.codeUsed(code));
  }

  findRefresh(token: string): Promise<RefreshRecord | undefined> {
    return readRecord(this.store, KEY.refresh(token));
  }

  /**
   * Uses the refresh token, once (SET NX, as redeemCode), saving the one that
   * replaces it in the same atomic step. False: it was used already.
   */
  rotateRefresh(token: string, record: RefreshRecord, use: RefreshUse, next: IssuedRefresh): Promise<boolean> {
    return this.store.claimAndPut(recordEntry(KEY.refreshUsed(token), use, record.expiresAt - this.clock() + LATE_GRACE_MS), this.refreshEntry(next));
  }

  private refreshEntry({ token, record }: IssuedRefresh) {
    return recordEntry(KEY.refresh(token), record, record.expiresAt - this.clock() + LATE_GRACE_MS);
  }

  refreshUse(token: string): Promise<RefreshUse | undefined> {
    return readRecord(this.store, KEY.refreshUsed(token));
  }

  /**
   * Ends a grant: its refresh tokens and every access token issued from it
   * (they carry its id). Kept as long as any token of the grant can live: a
   * rotation that raced the revocation issued tokens that expire before this.
   */
  async revokeGrant(grantId: string, reason: string, lifetimes: { accessMs: number; refreshMs: number }): Promise<void> {
    const revocation: Revocation = { reason, at: this.clock() };
    await putRecord(this.store, KEY.revokedGrant(grantId), revocation, Math.max(lifetimes.accessMs, lifetimes.refreshMs) + LATE_GRACE_MS);
    await this.changes?.publish('tokens');
  }

  grantRevocation(grantId: string): Promise<Revocation | undefined> {
    return readRecord(this.store, KEY.revokedGrant(grantId));
  }

  /** RFC 7009 for one access token: remembered until it expires (after that its exp refuses it anyway). */
  async revokeAccessToken(jti: string, expiresAtMs: number, reason: string): Promise<void> {
    const revocation: Revocation = { reason, at: this.clock() };
    await putRecord(this.store, KEY.revokedJti(jti), revocation, expiresAtMs - this.clock() + LATE_GRACE_MS);
    await this.changes?.publish('tokens');
  }

  accessTokenRevocation(jti: string): Promise<Revocation | undefined> {
    return readRecord(this.store, KEY.revokedJti(jti));
  }
}
