/** A portal account. */
export interface UserRecord {
  id: string;
  /**
   * What makes the account unique, in one indexed field: "password:<email>" for
   * local accounts, "<issuer>#<subject>" for users of a trusted identity provider.
   */
  key: string;
  email: string;
  /** "password", or the external issuer. */
  provider: string;
  /** scrypt hash; absent for external users. */
  passwordHash?: string;
  createdAt: Date;
  /** Set by an operator: no session, sign-in or app credential of this user works (docs/operators.md). */
  disabledAt?: Date;
  /** The last sign-in, or the last session check, written at most every LAST_SEEN_EVERY_MS (accounts.ts). */
  lastSeenAt?: Date;
  /** Named an operator when last seen (an email list or a group claim): purges spare them. */
  operator?: boolean;
  /**
   * An identity provider's user: the groups its last ID token named (the
   * OPERATOR_GROUPS_CLAIM claim), kept for a class's SSO group rule
   * (domain/classes.ts). At most 50, each at most 128 characters.
   */
  groups?: string[];
}

/** Fields an operator's action or a session check changes; null removes one. */
export interface UserPatch {
  disabledAt?: Date | null;
  lastSeenAt?: Date;
  operator?: boolean;
  groups?: string[];
}

/** A position in oldest-first order: (createdAt, id) ascending. */
export interface UserCursor {
  createdAt: Date;
  id: string;
}

export interface UserStore {
  /** Throws DuplicateKeyError when the key is taken. */
  insert(user: UserRecord): Promise<void>;
  findById(id: string): Promise<UserRecord | undefined>;
  findByKey(key: string): Promise<UserRecord | undefined>;
  /** The user with `user.key`, inserted first if there is none; concurrent calls end with the same one. */
  findOrInsert(user: UserRecord): Promise<UserRecord>;
  /** The users with these ids (those that exist). */
  findByIds(ids: string[]): Promise<UserRecord[]>;
  /** The user after the change, or undefined when there is none. */
  update(id: string, patch: UserPatch): Promise<UserRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** Oldest first, strictly after `after`; emailContains matches part of the (lower-case) email. */
  list(query: { limit: number; after?: UserCursor; emailContains?: string }): Promise<UserRecord[]>;
  count(emailContains?: string): Promise<number>;
  /** Everyone created before the moment, oldest first. */
  createdBefore(before: Date): Promise<UserRecord[]>;
}
