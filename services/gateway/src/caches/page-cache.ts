/** A rendered page of data, as the data service answered it. */
export interface CachedPage {
  bodyJson: Uint8Array;
  etag: string;
  link: string;
  /** The pack scope a caller must hold to be served this page. */
  scope: string;
  /** Facts of a request for this page, for the exercises (docs/exercises.md). */
  paginationStyle: string;
  lastPage: boolean;
  entityRows: number;
}

interface Entry {
  page: CachedPage;
  expiresAt: number;
  /** Set by a hit; the eviction scan gives such an entry a second chance instead of dropping it. */
  used: boolean;
}

/**
 * Pages are a pure function of the request and the dataset version, so the
 * gateway keeps recent ones: a paging client's repeated and shared pages then
 * cost no gRPC call. Bounded by bytes and by age, so a new dataset version
 * rolled out behind the gateway is served within one TTL. Eviction is
 * "second chance" (CLOCK), an approximation of least-recently-used that costs
 * a hit one flag instead of moving its entry in the map on every request.
 */
export class PageCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Lookups since start that found a live page, and those that did not (read by the metrics when scraped). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly ttlMs: number,
    /** The clock lifetimes are measured on; injectable so tests need no sleeps. */
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): CachedPage | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.misses++;
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      this.remove(key, entry.page);
      this.misses++;
      return undefined;
    }
    entry.used = true;
    this.hits++;
    return entry.page;
  }

  set(key: string, page: CachedPage): void {
    const size = page.bodyJson.byteLength + key.length;
    if (this.maxBytes <= 0 || size > this.maxBytes / 4) return; // one huge page must not flush everything else
    const existing = this.entries.get(key);
    if (existing) this.remove(key, existing.page);
    this.entries.set(key, { page, expiresAt: this.now() + this.ttlMs, used: false });
    this.bytes += size;
    this.evictOverBudget();
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** Oldest first (a Map iterates in insertion order); a used entry is moved to the back once, unflagged. */
  private evictOverBudget(): void {
    while (this.bytes > this.maxBytes) {
      const [key, entry] = this.entries.entries().next().value as [string, Entry];
      if (entry.used) {
        entry.used = false;
        this.entries.delete(key);
        this.entries.set(key, entry);
      } else {
        this.remove(key, entry.page);
      }
    }
  }

  private remove(key: string, page: CachedPage): void {
    this.entries.delete(key);
    this.bytes -= page.bodyJson.byteLength + key.length;
  }
}
