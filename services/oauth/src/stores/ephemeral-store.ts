/**
 * Short-lived values with a time to live: authorization codes, request tokens,
 * verifiers, nonces. `take` reads and deletes in one step, which is what makes
 * a code redeemable exactly once even with several oauth replicas.
 */
export interface EphemeralStore {
  /**
   * Stores a value for ttlMs (a positive whole number of milliseconds), replacing
   * any value and lifetime the key had; with onlyIfAbsent, returns false and changes
   * nothing (value or lifetime) when the key holds a live value. The lifetime runs on
   * the store's own clock (Redis's, for the Redis adapter), so a caller may rely on a
   * value being readable before it ends and gone after it, never on the exact moment.
   */
  put(key: string, value: string, ttlMs: number, options?: { onlyIfAbsent?: boolean }): Promise<boolean>;
  get(key: string): Promise<string | undefined>;
  take(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Stores the whole number `value` (0 to 2^53 - 1) for ttlMs when the key is
   * absent or holds a smaller number, in one atomic step, and returns whether it
   * did; otherwise changes nothing (value or lifetime). A count that must only
   * go up (Digest's nonce count) advances on exactly one replica this way.
   */
  putIfGreater(key: string, value: number, ttlMs: number): Promise<boolean>;
  /**
   * Stores `claim` if its key holds no live value and, in the same atomic
   * step, `then` (replacing any value it had); returns whether it did,
   * otherwise changes nothing. What must not be half-written: marking a code
   * or a refresh token used and saving the refresh token that replaces it (a
   * store outage between the two would end the grant for a client that did
   * nothing wrong).
   */
  claimAndPut(claim: StoreEntry, then: StoreEntry): Promise<boolean>;
  /**
   * Deletes every entry whose key or value `matches` (asked of each, on its
   * own), and returns how many live ones it deleted: for forgetting apps
   * (domain/forget-apps.ts). It walks the whole store, a step at a time, so
   * it is for rare work, never a request's. Not one atomic step: an entry
   * written while it runs may stay.
   */
  forgetMatching(matches: (text: string) => boolean): Promise<number>;
}

/** One value to store, with its lifetime (a positive whole number of milliseconds). */
export interface StoreEntry {
  key: string;
  value: string;
  ttlMs: number;
}
