/**
 * Answers reused for a few hundred milliseconds, so the credential checks on
 * every data request cost microseconds instead of a database round trip.
 *
 * - Concurrent misses for one key share one load.
 * - clear() forgets everything at once, and a load that was already running
 *   when clear() was called does not put its (possibly stale) answer back,
 *   nor is it shared with anyone who asks after the clear.
 * - read() says whether an answer was remembered, so a caller can confirm a
 *   remembered refusal with reload() before answering it.
 * - Bounded: beyond maxEntries the oldest entry goes, so a flood of made-up
 *   keys costs memory only up to the bound.
 */
export class ShortLivedCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<V>>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    return (await this.read(key, load)).value;
  }

  /**
   * The answer, and whether it was remembered from an earlier load (false
   * when this call's load, or one running when it came, produced it).
   */
  async read(key: string, load: () => Promise<V>): Promise<{ value: V; remembered: boolean }> {
    if (this.ttlMs <= 0) return { value: await load(), remembered: false };
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.expiresAt > this.clock()) return { value: hit.value, remembered: true };
      this.entries.delete(key);
    }
    return { value: await this.load(key, load), remembered: false };
  }

  /**
   * Forgets the key and loads it again. A load of the key already running is
   * shared: it began after the forgotten answer was remembered and after the
   * last clear(), so it is as fresh as the change feed can tell.
   */
  reload(key: string, load: () => Promise<V>): Promise<V> {
    this.entries.delete(key);
    return this.ttlMs <= 0 ? load() : this.load(key, load);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.inflight.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private load(key: string, load: () => Promise<V>): Promise<V> {
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const loading = load()
      .then((value) => {
        if (generation === this.generation) this.put(key, value);
        return value;
      })
      .finally(() => {
        if (this.inflight.get(key) === loading) this.inflight.delete(key);
      });
    this.inflight.set(key, loading);
    return loading;
  }

  private put(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: this.clock() + this.ttlMs });
  }
}
