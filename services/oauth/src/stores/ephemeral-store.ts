/**
 * Short-lived values with a time to live: authorization codes, request tokens,
 * verifiers, nonces. `take` reads and deletes in one step, which is what makes
 * a code redeemable exactly once even with several oauth replicas.
 */
export interface EphemeralStore {
  /** Stores a value; with onlyIfAbsent, returns false and changes nothing when the key exists. */
  put(key: string, value: string, ttlMs: number, options?: { onlyIfAbsent?: boolean }): Promise<boolean>;
  get(key: string): Promise<string | undefined>;
  take(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
