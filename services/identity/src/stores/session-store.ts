/**
 * A portal session. Our own session JWTs are valid only while their "active"
 * record exists, which is what makes logout immediate. A signed-out token of a
 * trusted external issuer is remembered as a "revoked" record until it expires.
 */
export interface SessionRecord {
  id: string;
  userId: string;
  expiresAt: Date;
  kind: 'active' | 'revoked';
}

export interface SessionStore {
  /** Inserts, or replaces a record with the same id. */
  put(session: SessionRecord): Promise<void>;
  /** Expired records are absent, whether or not the cleanup has removed them yet. */
  find(id: string, now: Date): Promise<SessionRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** The periodic cleanup (there is no TTL index on FerretDB). */
  deleteExpired(now: Date): Promise<number>;
}
