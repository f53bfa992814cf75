import type { MaybePromise } from './maybe-promise';

export interface ShortLivedCacheOptions<V> {
  /** How long an answer is remembered, from the start of the load that produced it; 0 or less remembers nothing. */
  ttlMs: number;
  /** The bound: a flood of made-up keys costs memory only up to it. */
  maxEntries?: number;
  /** The clock lifetimes are measured on; injectable so tests move time instead of waiting. */
  clock?: () => number;
  /** Whether an answer may be remembered once it is in (e.g. acceptances only); one that may not is still shared while it loads. */
  keep?: (value: V) => boolean;
}

interface Entry<V> {
  pending: Promise<V>;
  /** Set once `pending` has resolved, so later hits need not wait on a promise. */
  settled?: { value: V };
  expiresAt: number;
}

/**
 * Answers remembered for a few hundred milliseconds, so a burst of checks of
 * one credential or app costs one read (the gateway's verdicts, identity's
 * credentials and sessions, oauth's app directory; docs/state.md, "Caches").
 *
 * - Concurrent lookups of a key share one load; a rejected load is
 *   forgotten at once, and so is an answer `keep` refuses.
 * - clear() forgets everything, loads in flight included: their answers
 *   reach their own callers only, are never put back and never shared with
 *   anyone who asks after the clear (the change that cleared may postdate
 *   what they read).
 * - A hit on a settled answer returns the value itself, not a promise.
 * - confirmed() is for a caller about to refuse: a remembered answer it
 *   would refuse on is loaded again before it does.
 * - Bounded: at maxEntries, expired entries go first, then the oldest.
 */
export class ShortLivedCache<V> {
  // Insertion order is expiry order (one lifetime for all, and a reloaded key is re-inserted), which makeRoom relies on.
  private readonly entries = new Map<string, Entry<V>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly clock: () => number;
  private readonly keep: ((value: V) => boolean) | undefined;

  constructor(options: ShortLivedCacheOptions<V>) {
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.clock = options.clock ?? Date.now;
    this.keep = options.keep;
  }

  /** The remembered answer (the value itself once settled), else the load in flight for the key, else a new load. */
  get(key: string, load: () => Promise<V>): MaybePromise<V> {
    if (this.ttlMs <= 0) return load();
    const now = this.clock();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.settled ? hit.settled.value : hit.pending;
    return this.load(key, load, now);
  }

  /**
   * As get(), except that a remembered answer `accepts` rejects is loaded
   * again (sharing a load of the key already in flight) and that answer
   * stands: a refusal is never based on memory alone. An answer from a
   * load already in flight when asked is not checked: it began after the
   * remembered one and after the last clear(), so it is as fresh as the
   * change feed can tell.
   */
  async confirmed(key: string, load: () => Promise<V>, accepts: (value: V) => boolean): Promise<V> {
    if (this.ttlMs <= 0) return load();
    const now = this.clock();
    const hit = this.entries.get(key);
    if (!hit || hit.expiresAt <= now) return this.load(key, load, now);
    if (!hit.settled) return hit.pending;
    if (accepts(hit.settled.value)) return hit.settled.value;
    // Replacing the entry makes this load the one the next caller shares.
    return this.load(key, load, now);
  }

  /** Forgets every answer and every load in flight. */
  clear(): void {
    this.entries.clear();
  }

  /** Entries held, loads in flight included. */
  get size(): number {
    return this.entries.size;
  }

  private load(key: string, load: () => Promise<V>, now: number): Promise<V> {
    // Deleted first so the key is re-inserted at the end: insertion order stays expiry order.
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.makeRoom(now);
    const entry: Entry<V> = { pending: load(), expiresAt: now + this.ttlMs };
    this.entries.set(key, entry);
    const forget = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    entry.pending.then((value) => {
      if (this.keep && !this.keep(value)) forget();
      else entry.settled = { value };
    }, forget);
    return entry.pending;
  }

  /** Drops the expired entries, then the oldest until there is room; both sit at the front of the map. */
  private makeRoom(now: number): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size < this.maxEntries && entry.expiresAt > now) break;
      this.entries.delete(key);
    }
  }
}
