import type { MaybePromise } from '../maybe-async';

interface Entry<V> {
  pending: Promise<V>;
  /** Set once `pending` has resolved, so later hits need not wait on a promise. */
  settled?: { value: V };
  expiresAt: number;
}

/**
 * A small time-bounded memo. Concurrent lookups of the same key share one
 * backend call; a rejected lookup is forgotten at once, and so is an answer
 * `keep` says not to remember (the gateway keeps acceptances only: a
 * refusal is asked again every time, so it is never older than the request).
 * clear() forgets everything, answers on their way included. A hit on a
 * settled entry returns the value itself rather than a promise (see
 * maybe-async.ts).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    /** The clock lifetimes are measured on; injectable so tests need no sleeps. */
    private readonly now: () => number = Date.now,
    private readonly keep: (value: V) => boolean = () => true,
  ) {}

  /** Forgets every answer, and the lookups under way (their answers reach their own callers only). */
  clear(): void {
    this.entries.clear();
  }

  get(key: string, load: () => Promise<V>): MaybePromise<V> {
    if (this.ttlMs <= 0) return load();
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.settled ? hit.settled.value : hit.pending;
    if (this.entries.size >= this.maxEntries) this.evictExpiredOrOldest(now);
    const entry: Entry<V> = { pending: load(), expiresAt: now + this.ttlMs };
    this.entries.set(key, entry);
    entry.pending.then(
      (value) => {
        if (this.keep(value)) entry.settled = { value };
        else if (this.entries.get(key) === entry) this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.pending;
  }

  private evictExpiredOrOldest(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    // Still full: drop the oldest insertions (Map keeps insertion order).
    for (const key of this.entries.keys()) {
      if (this.entries.size < this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
