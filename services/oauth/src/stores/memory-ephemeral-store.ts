import { unavailable } from '@sandbox/runtime';
import type { EphemeralStore, StoreEntry } from './ephemeral-store';

export interface MemoryEphemeralStoreOptions {
  /** The clock lifetimes are judged by, in ms since the epoch; a test passes one it moves itself, so expiry is checked without sleeping. */
  now?: () => number;
  /** How often expired entries are dropped to return their memory (they are invisible at once either way). */
  sweepIntervalMs?: number;
  /** The most live entries it holds (OAUTH_MEMORY_MAX_ENTRIES); a new one beyond it is refused. */
  maxEntries?: number;
}

/** What a full store answers: 503, as a full Redis under noeviction does (docs/state.md). */
const SECONDS_UNTIL_ENTRIES_EXPIRE = 30;
const full = (maxEntries: number) =>
  unavailable(
    'memory_full',
    `The oauth service's in-memory store is full (${maxEntries} entries, OAUTH_MEMORY_MAX_ENTRIES): it refuses rather than forget a nonce or a used code. Entries expire within minutes; for more, run it with REDIS_URL.`,
  ).retryAfter(SECONDS_UNTIL_ENTRIES_EXPIRE);

/** The embedded default: one process, so a Map is as atomic as Redis. */
export class MemoryEphemeralStore implements EphemeralStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly maxEntries: number;

  constructor({ now = Date.now, sweepIntervalMs = 30_000, maxEntries = 250_000 }: MemoryEphemeralStoreOptions = {}) {
    this.now = now;
    this.maxEntries = maxEntries;
    // Expired entries are invisible at once; the sweep only returns their memory.
    this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
    this.sweeper.unref();
  }

  async put(key: string, value: string, ttlMs: number, options: { onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    if (options.onlyIfAbsent && this.live(key) !== undefined) return false;
    this.makeRoomFor(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    return true;
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key);
  }

  async take(key: string): Promise<string | undefined> {
    const value = this.live(key);
    this.entries.delete(key);
    return value;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async ping(): Promise<void> {}

  /**
   * How full it is, for the metrics (stores/memory-store-metrics.ts): the live
   * entries after a sweep (the expired ones would be swept before a refusal
   * anyway, so they do not count) and the most it holds.
   */
  fill(): { entries: number; capacity: number } {
    this.sweep();
    return { entries: this.entries.size, capacity: this.maxEntries };
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
  }

  private live(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  async claimAndPut(claim: StoreEntry, then: StoreEntry): Promise<boolean> {
    // No await in between: as atomic as the Lua script in Redis; room for both is made before either is written.
    if (this.live(claim.key) !== undefined) return false;
    this.makeRoomFor(claim.key, then.key);
    const now = this.now();
    this.entries.set(claim.key, { value: claim.value, expiresAt: now + claim.ttlMs });
    this.entries.set(then.key, { value: then.value, expiresAt: now + then.ttlMs });
    return true;
  }

  /**
   * A replay memory evicted early would let a replay through, so a full store
   * refuses a new key instead (a sweep first, in case expired entries hold the room).
   */
  private makeRoomFor(...keys: string[]): void {
    const added = () => keys.filter((key) => !this.entries.has(key)).length;
    if (this.entries.size + added() <= this.maxEntries) return;
    this.sweep();
    if (this.entries.size + added() > this.maxEntries) throw full(this.maxEntries);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }

  async forgetMatching(matches: (text: string) => boolean): Promise<number> {
    const now = this.now();
    let forgotten = 0;
    for (const [key, entry] of this.entries) {
      if (!matches(key) && !matches(entry.value)) continue;
      this.entries.delete(key);
      if (entry.expiresAt > now) forgotten++;
    }
    return forgotten;
  }

  async putIfGreater(key: string, value: number, ttlMs: number): Promise<boolean> {
    const current = this.live(key);
    // No await between the read and the write: as atomic as the Lua script in Redis.
    if (current !== undefined && !(Number(current) < value)) return false;
    this.makeRoomFor(key);
    this.entries.set(key, { value: String(value), expiresAt: this.now() + ttlMs });
    return true;
  }
}
