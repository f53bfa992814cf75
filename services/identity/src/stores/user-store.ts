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
}

export interface UserStore {
  /** Throws DuplicateKeyError when the key is taken. */
  insert(user: UserRecord): Promise<void>;
  findById(id: string): Promise<UserRecord | undefined>;
  findByKey(key: string): Promise<UserRecord | undefined>;
  /** The user with `user.key`, inserted first if there is none; concurrent calls end with the same one. */
  findOrInsert(user: UserRecord): Promise<UserRecord>;
}
