import { Registry } from '@sandbox/runtime';
import { PageCache } from '../../src/caches/page-cache';
import { GatewayMetrics } from '../../src/observe/metrics';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const page = (bytes: number) => ({
  bodyJson: new Uint8Array(bytes),
  etag: '"e"',
  link: '',
  scope: 'hr:read',
  paginationStyle: 'page',
  lastPage: false,
  entityRows: 1,
});

describe('the gateway metrics', () => {
  let registry: Registry;
  let metrics: GatewayMetrics;

  beforeEach(() => {
    registry = new Registry();
    metrics = new GatewayMetrics(registry);
  });

  it('when requests finish, then they are counted and timed by pattern, method and status', async () => {
    const started = process.hrtime.bigint();
    metrics.observe('/playground/data/:pack/:entity', 'GET', 200, started);
    metrics.observe('/playground/data/:pack/:entity', 'GET', 200, started);
    metrics.observe('/playground/data/:pack/:entity', 'HEAD', 304, started);
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_http_requests_total{route="/playground/data/:pack/:entity",method="GET",status="200"}')).toBe(2);
    expect(sample(text, 'sandbox_http_requests_total{route="/playground/data/:pack/:entity",method="HEAD",status="304"}')).toBe(1);
    expect(sample(text, 'sandbox_http_request_duration_seconds_count{route="/playground/data/:pack/:entity",method="GET",status="200"}')).toBe(2);
    expect(sample(text, 'sandbox_http_request_duration_seconds_bucket{le="120",route="/playground/data/:pack/:entity",method="GET",status="200"}')).toBe(2);
  });

  it('when a method is not one of the usual ones, then it is counted as other', async () => {
    metrics.observe('unmatched', 'PROPFIND', 404, process.hrtime.bigint());
    metrics.observe('unmatched', 'LINK', 404, process.hrtime.bigint());
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_http_requests_total{route="unmatched",method="other",status="404"}')).toBe(2);
    expect(text).not.toContain('PROPFIND');
  });

  it('when nothing was looked up, then the hit ratio is 0 and every refusal kind is at 0', async () => {
    metrics.watchPageCache(new PageCache(1024 * 1024, 60_000));
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_page_cache_hit_ratio')).toBe(0);
    expect(sample(text, 'sandbox_page_cache_requests_total{result="hit"}')).toBe(0);
    expect(sample(text, 'sandbox_production_credential_refusals_total{kind="aws-access-key-id"}')).toBe(0);
  });

  it('when pages are looked up, then hits, misses (an expired page is one), the ratio and the bytes follow the cache', async () => {
    let now = 0;
    const cache = new PageCache(1024 * 1024, 1000, () => now);
    metrics.watchPageCache(cache);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', page(100));
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('a')).toBeDefined();
    now = 2000;
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', page(50));
    const text = await registry.metrics();
    expect(sample(text, 'sandbox_page_cache_requests_total{result="hit"}')).toBe(2);
    expect(sample(text, 'sandbox_page_cache_requests_total{result="miss"}')).toBe(2);
    expect(sample(text, 'sandbox_page_cache_hit_ratio')).toBe(0.5);
    expect(sample(text, 'sandbox_page_cache_bytes')).toBe(51);
  });

  it('when a credential is refused, then its pattern id is counted', async () => {
    metrics.credentialRefused('stripe-live-key');
    expect(sample(await registry.metrics(), 'sandbox_production_credential_refusals_total{kind="stripe-live-key"}')).toBe(1);
  });
});
