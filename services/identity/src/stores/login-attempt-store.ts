/** Failed sign-ins for one email (known or not, so the lock-out reveals nothing). */
export interface LoginAttempts {
  failures: number;
  lastFailureAt: Date;
}

/**
 * One record per failure rather than a counter: FerretDB has no atomic $inc
 * (concurrent increments are lost), while concurrent inserts never are.
 */
export interface LoginAttemptStore {
  /** The failures since `windowStart`: how many, and when the latest was; undefined when none. */
  get(key: string, windowStart: Date): Promise<LoginAttempts | undefined>;
  recordFailure(key: string, at: Date): Promise<void>;
  clear(key: string): Promise<void>;
  deleteOlderThan(cutoff: Date): Promise<number>;
}
