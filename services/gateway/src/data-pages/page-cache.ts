/** A rendered page of data, as the data service answered it. */
export interface CachedPage {
  bodyJson: Uint8Array;
  etag: string;
  link: string;
  /** The pack scope a caller must hold to be served this page. */
  scope: string;
}

/**
 * Pages are a pure function of the request and the dataset version, so the
 * gateway keeps recent ones: a paging client's repeated and shared pages then
 * cost no gRPC call. Bounded by bytes (least recently used goes first) and by
 * age, so a new dataset version rolled out behind the gateway is served
 * within one TTL.
 */
export class PageCache {
  private readonly entries = new Map<string, { page: CachedPage; expiresAt: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly ttlMs: number,
  ) {}

  get(key: string): CachedPage | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.remove(key, entry.page);
      return undefined;
    }
    // Re-insert to mark it most recently used (a Map iterates in insertion order).
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.page;
  }

  set(key: string, page: CachedPage): void {
    const size = page.bodyJson.byteLength + key.length;
    if (this.maxBytes <= 0 || size > this.maxBytes / 4) return; // one huge page must not flush everything else
    const existing = this.entries.get(key);
    if (existing) this.remove(key, existing.page);
    this.entries.set(key, { page, expiresAt: Date.now() + this.ttlMs });
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest, entry.page);
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private remove(key: string, page: CachedPage): void {
    this.entries.delete(key);
    this.bytes -= page.bodyJson.byteLength + key.length;
  }
}
