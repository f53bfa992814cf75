import { Counter, Gauge, grpcClientMetrics, Histogram, LATENCY_BUCKETS, type CallMetrics, type Registry } from '@sandbox/runtime';
import type { PageCache } from '../caches/page-cache';
import { SECRET_PATTERNS } from '../guard/secret-patterns';
import type { RequestMetrics } from '../http/server';

/** The methods a label names; anything else (node accepts PROPFIND, LINK, …) is `other`, so the label stays bounded. */
const METHOD_INDEX = new Map(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((method, index) => [method, index + 1]));

interface HttpLabels {
  route: string;
  method: string;
  status: string;
}

/** One (route, method, status) series: its labels, made once, and its request count. */
interface HttpSeries {
  readonly labels: HttpLabels;
  count: number;
}

/**
 * What the gateway records into its registry (docs/metrics.md): requests by
 * route pattern, method and status; its gRPC client calls; the page cache;
 * the production-credential refusals.
 *
 * Per request the cost is two map lookups, one increment and prom-client's
 * histogram observe with a label object made once per (route, method,
 * status), about 0.7 µs: the request counter and the page-cache series are
 * read from plain counts when Prometheus scrapes (prom-client's own inc, with
 * its label hashing, would add a third to that).
 */
export class GatewayMetrics implements RequestMetrics {
  readonly grpcClient: CallMetrics;
  private readonly duration: Histogram<keyof HttpLabels>;
  private readonly refusals: Counter<'kind'>;
  /** route pattern → (method index × 1000 + status) → series. */
  private readonly series = new Map<string, Map<number, HttpSeries>>();
  private pageCache?: PageCache;

  constructor(registry: Registry) {
    const registers = [registry];
    this.grpcClient = grpcClientMetrics(registry);
    const series = this.series;
    new Counter({
      name: 'sandbox_http_requests_total',
      help: 'HTTP requests answered, by route pattern (unmatched: no row), method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
      collect() {
        this.reset();
        for (const byRoute of series.values()) for (const { labels, count } of byRoute.values()) this.inc(labels, count);
      },
    });
    this.duration = new Histogram({
      name: 'sandbox_http_request_duration_seconds',
      help: 'Time from reading a request to finishing its answer, in seconds, by route pattern, method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.refusals = new Counter({
      name: 'sandbox_production_credential_refusals_total',
      help: 'Requests refused for carrying something shaped like a live production credential, by the pattern it matched.',
      labelNames: ['kind'],
      registers,
    });
    // Every kind from the start, at 0, so that a first refusal shows as an increase.
    for (const pattern of SECRET_PATTERNS) this.refusals.inc({ kind: pattern.id }, 0);

    // Read from the cache's own counts when scraped: a lookup costs the cache one increment, nothing here.
    const cache = () => this.pageCache;
    new Counter({
      name: 'sandbox_page_cache_requests_total',
      help: 'Data page lookups in the gateway page cache: hit (served from memory) or miss (asked of the data service).',
      labelNames: ['result'],
      registers,
      collect() {
        this.reset();
        this.inc({ result: 'hit' }, cache()?.hits ?? 0);
        this.inc({ result: 'miss' }, cache()?.misses ?? 0);
      },
    });
    new Gauge({
      name: 'sandbox_page_cache_hit_ratio',
      help: 'Page cache hits / (hits + misses) since the gateway started; 0 before the first lookup.',
      registers,
      collect() {
        const hits = cache()?.hits ?? 0;
        const total = hits + (cache()?.misses ?? 0);
        this.set(total === 0 ? 0 : hits / total);
      },
    });
    new Gauge({
      name: 'sandbox_page_cache_bytes',
      help: 'Bytes of pages (and their keys) the page cache holds.',
      registers,
      collect() {
        this.set(cache()?.size.bytes ?? 0);
      },
    });
  }

  observe(route: string, method: string, status: number, startedAt: bigint): void {
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    let byRoute = this.series.get(route);
    if (!byRoute) this.series.set(route, (byRoute = new Map()));
    const methodIndex = METHOD_INDEX.get(method) ?? 0;
    const key = methodIndex * 1000 + status;
    let one = byRoute.get(key);
    if (!one) byRoute.set(key, (one = { labels: { route, method: methodIndex === 0 ? 'other' : method, status: String(status) }, count: 0 }));
    one.count++;
    this.duration.observe(one.labels, seconds);
  }

  /** `id` is the pattern's id in secret-patterns.ts (bounded); never the credential nor any part of it. */
  credentialRefused(id: string): void {
    this.refusals.inc({ kind: id });
  }

  /** The cache whose lookups and size the page-cache series report. */
  watchPageCache(cache: PageCache): void {
    this.pageCache = cache;
  }
}
