import type { EphemeralStore, StoreEntry } from '../stores/ephemeral-store';

/**
 * How the protocols' state (oauth1/state.ts, oauth2/grant-state.ts) keeps its
 * records in the ephemeral store: as JSON, for a lifetime the caller works out
 * from the times inside the record. Expiry is decided by the injected clock
 * from those times; the store's TTL only gives the memory back afterwards.
 */

/** A lifetime as the store takes it: a positive whole number of milliseconds, so a record already past its time still gets 1 ms. */
export const storeTtl = (ms: number) => Math.max(1, Math.ceil(ms));

/** Stores `record` as JSON for `ms` (rounded as storeTtl does); with onlyIfAbsent, false when the key holds a live value. */
export function putRecord(store: EphemeralStore, key: string, record: unknown, ms: number, options?: { onlyIfAbsent?: boolean }): Promise<boolean> {
  return store.put(key, JSON.stringify(record), storeTtl(ms), options);
}

/** `record` as an entry for a write of several at once (EphemeralStore.claimAndPut), stored as putRecord would. */
export const recordEntry = (key: string, record: unknown, ms: number): StoreEntry => ({ key, value: JSON.stringify(record), ttlMs: storeTtl(ms) });

/** The record under `key`, or undefined when there is none. */
export async function readRecord<T>(store: EphemeralStore, key: string): Promise<T | undefined> {
  const raw = await store.get(key);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined; // not ours (or damaged): as good as absent
  }
}
