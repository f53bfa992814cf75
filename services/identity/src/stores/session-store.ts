/**
 * A portal session. Our own session JWTs are valid only while their "active"
 * record exists, which is what makes logout immediate. A signed-out token of a
 * trusted external issuer is remembered as a "revoked" record until it expires.
 */
export interface SessionRecord {
  id: string;
  userId: string;
  expiresAt: Date;
  /**
   * active: one of our sessions; revoked: a signed-out external token;
   * deleted: an operator deleted this external user, so their tokens issued
   * before `issuedBefore` are refused (accounts.ts), until the record expires.
   */
  kind: 'active' | 'revoked' | 'deleted';
  issuedBefore?: Date;
}

export interface SessionStore {
  /** Inserts, or replaces a record with the same id. */
  put(session: SessionRecord): Promise<void>;
  /** Expired records are absent, whether or not the cleanup has removed them yet. */
  find(id: string, now: Date): Promise<SessionRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** Every active or revoked record of the user (an operator deleted or disabled them); how many. */
  deleteForUser(userId: string): Promise<number>;
  /** The periodic cleanup (there is no TTL index on FerretDB). */
  deleteExpired(now: Date): Promise<number>;
}
