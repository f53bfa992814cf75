import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import {
  apiRequest,
  clientCredentialsToken,
  createApp,
  type CreatedApp,
  eventually,
  isolatedMongoUrl,
  rawRequest,
  registerUser,
  requireStoreUrls,
  type RunningSystem,
  startSystem,
} from '@sandbox/testing';
import { UNMATCHED } from '../../src/http/server';
import { routeTable } from '../../src/openapi/offline-document';

jest.setTimeout(120_000);

type Process = 'gateway' | 'identity' | 'oauth' | 'data' | 'playground';
const PROCESSES: Process[] = ['gateway', 'identity', 'oauth', 'data', 'playground'];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
}

/**
 * Prometheus's text exposition format (0.0.4), as much of it as a scrape
 * holds: `# TYPE` lines, and samples with escaped label values and an
 * optional timestamp. The npm parsers of this format are unmaintained, so the
 * test reads it itself; anything it does not understand fails the test.
 */
function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1], type[2]);
      else if (!line.startsWith('# HELP ')) throw new Error(`unexpected comment line: ${line}`);
      continue;
    }
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (!name) throw new Error(`not a sample: ${line}`);
    let at = name.length;
    const labels: Record<string, string> = {};
    if (line[at] === '{') {
      at++;
      while (line[at] !== '}') {
        const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
        if (!label) throw new Error(`bad label at ${at}: ${line}`);
        at += label[0].length;
        let value = '';
        for (; line[at] !== '"'; at++) {
          if (at >= line.length) throw new Error(`unterminated label value: ${line}`);
          if (line[at] === '\\') {
            at++;
            value += line[at] === 'n' ? '\n' : line[at];
          } else value += line[at];
        }
        at++;
        labels[label[1]] = value;
        if (line[at] === ',') at++;
        else if (line[at] !== '}') throw new Error(`bad label list: ${line}`);
      }
      at++;
    }
    const [valueText, timestamp, ...rest] = line.slice(at).trim().split(' ');
    if (rest.length > 0 || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) throw new Error(`bad sample tail: ${line}`);
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') throw new Error(`bad value: ${line}`);
    samples.push({ name, labels, value });
  }
  return { types, samples };
}

/** The samples named `name` whose labels include `labels`. */
function find(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one sample named `name` with exactly these labels' values; fails if absent. */
function value(exposition: Exposition, name: string, labels: Record<string, string>): number {
  const found = find(exposition, name, labels).filter((s) => Object.keys(s.labels).length === Object.keys(labels).length);
  if (found.length !== 1) throw new Error(`expected one ${name}${JSON.stringify(labels)}, found ${found.length}`);
  return found[0].value;
}

/** Every route pattern the gateway serves, as its rows declare them (built without a server). */
function routePatterns(): Set<string> {
  return new Set(routeTable().map((row) => row.path));
}

const REDIRECT = 'http://127.0.0.1:9/callback';
const DATA_ROUTE = '/playground/data/:pack/:entity';
// A synthetic AWS key shape, built at run time so no literal one sits in the repository.
const awsKey = () => ['AK', 'IA'].join('') + Array.from(randomBytes(16), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[b % 32]).join('');

/** The whole system with a metrics listener per process: traffic first, then one scrape of each, and the series checked. */
describe('metrics, scraped from every process after some traffic', () => {
  let system: RunningSystem;
  let app: CreatedApp;
  let secret: string;
  const scraped = {} as Record<Process, Exposition>;
  const scrapedText = {} as Record<Process, string>;
  const sent = { pages: 0 };

  beforeAll(async () => {
    system = await startSystem({ MONGO_URL: isolatedMongoUrl('metrics'), REDIS_URL: requireStoreUrls().redisUrl }, { metrics: true });
    const session = await registerUser(system.baseUrl);
    app = await createApp(system.baseUrl, session, { scopes: ['hr:read', 'stocks:read'] });
    const get = (path: string, headers: Record<string, string> = {}) => rawRequest(`${system.baseUrl}${path}`, { headers });

    // The same page three times (a miss, then hits), and another page once.
    for (const path of [
      '/playground/data/stocks/candles?page=1&page_size=5',
      '/playground/data/stocks/candles?page=1&page_size=5',
      '/playground/data/stocks/candles?page=1&page_size=5',
      '/playground/data/hr/employees?page_size=3',
    ]) {
      expect((await get(path, { 'x-api-key': app.apiKey })).status).toBe(200);
      sent.pages++;
    }
    // The credential in the query: the label must still be the pattern, and the key nowhere.
    expect((await get(`/playground/data/hr/employees?api_key=${app.apiKey}&page_size=2`)).status).toBe(200);
    sent.pages++;
    expect((await get('/no/such/thing')).status).toBe(404);
    expect((await get('/playground/data/hr/employees')).status).toBe(401);
    expect((await rawRequest(`${system.baseUrl}/health`, { method: 'DELETE' })).status).toBe(405);
    secret = awsKey();
    const refused = await get('/health', { 'X-Debug': secret });
    expect({ status: refused.status, code: refused.json().error.code }).toEqual({ status: 400, code: 'production_credential_refused' });
    expect((await get('/playground/echo')).status).toBe(200);
    // A client that gives up before its answer: counted as 499 once the gateway sees the connection close.
    const gaveUp = request(`${system.baseUrl}/playground/timeout?delay=10000`);
    gaveUp.on('error', () => undefined);
    gaveUp.end();
    await new Promise((resolve) => setTimeout(resolve, 300));
    gaveUp.destroy();
    await eventually(
      async () => (await rawRequest(system.metricsUrls!.gateway)).body,
      (text) => text.includes('sandbox_http_requests_total{route="/playground/timeout",method="GET",status="499"} 1'),
      15_000,
    );

    // OAuth: a code kept in Redis by the authorize step, and a client-credentials token.
    const uris = await apiRequest(system.baseUrl, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [REDIRECT] } });
    expect(uris.status).toBe(200);
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const authorize = await get(
      `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.appId, redirect_uri: REDIRECT, scope: 'hr:read', state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`,
    );
    expect(authorize.status).toBe(302);
    const token = await clientCredentialsToken(system.baseUrl, app);
    expect(token.status).toBe(200);

    for (const name of PROCESSES) {
      const res = await rawRequest(system.metricsUrls![name]);
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      scrapedText[name] = res.body;
      scraped[name] = parseExposition(res.body);
    }
  });
  afterAll(async () => system?.stop());

  it("every process serves Node's process metrics", () => {
    for (const name of PROCESSES) {
      expect({ name, cpu: find(scraped[name], 'process_cpu_user_seconds_total').length }).toEqual({ name, cpu: 1 });
      expect({ name, heap: value(scraped[name], 'nodejs_heap_size_used_bytes', {}) > 0 }).toEqual({ name, heap: true });
    }
  });

  it('the gateway counts requests by route pattern, method and status, and times each such series', () => {
    const { gateway } = scraped;
    expect(gateway.types.get('sandbox_http_requests_total')).toBe('counter');
    expect(gateway.types.get('sandbox_http_request_duration_seconds')).toBe('histogram');
    const pages = { route: DATA_ROUTE, method: 'GET', status: '200' };
    expect(value(gateway, 'sandbox_http_requests_total', pages)).toBeGreaterThanOrEqual(sent.pages);
    expect(value(gateway, 'sandbox_http_requests_total', { route: UNMATCHED, method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(value(gateway, 'sandbox_http_requests_total', { route: DATA_ROUTE, method: 'GET', status: '401' })).toBeGreaterThanOrEqual(1);
    expect(value(gateway, 'sandbox_http_requests_total', { route: '/health', method: 'DELETE', status: '405' })).toBeGreaterThanOrEqual(1);
    expect(value(gateway, 'sandbox_http_requests_total', { route: '/health', method: 'GET', status: '400' })).toBeGreaterThanOrEqual(1);
    expect(value(gateway, 'sandbox_http_requests_total', { route: '/playground/timeout', method: 'GET', status: '499' })).toBe(1);

    // Counter and histogram are recorded together: the same count for every series.
    const counters = find(gateway, 'sandbox_http_requests_total');
    expect(counters.length).toBeGreaterThan(5);
    for (const counter of counters) {
      const { route, method, status } = counter.labels;
      expect({ ...counter.labels, count: value(gateway, 'sandbox_http_request_duration_seconds_count', { route, method, status }) }).toEqual({
        ...counter.labels,
        count: counter.value,
      });
      expect(value(gateway, 'sandbox_http_request_duration_seconds_bucket', { route, method, status, le: '+Inf' })).toBe(counter.value);
      expect(value(gateway, 'sandbox_http_request_duration_seconds_sum', { route, method, status })).toBeGreaterThan(0);
      // The largest finite bucket is 120 s: nothing here waited that long.
      expect(value(gateway, 'sandbox_http_request_duration_seconds_bucket', { route, method, status, le: '120' })).toBe(counter.value);
    }
  });

  it('every route label is a row pattern or "unmatched", every method a method: never a raw path, id, query or credential', () => {
    const patterns = routePatterns();
    for (const { labels } of find(scraped.gateway, 'sandbox_http_requests_total')) {
      expect({ route: labels.route, known: patterns.has(labels.route) || labels.route === UNMATCHED }).toEqual({ route: labels.route, known: true });
      expect(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'other']).toContain(labels.method);
      expect(labels.status).toMatch(/^[1-5]\d\d$/);
    }
    const forbidden = ['?', app.id, app.appId, app.apiKey, app.appSecret, secret, secret.slice(0, 8), '/no/such/thing', 'stocks/candles', 'page_size'];
    const offending = PROCESSES.flatMap((name) =>
      scraped[name].samples.flatMap((sample) =>
        Object.values(sample.labels)
          .filter((labelValue) => forbidden.some((text) => labelValue.includes(text)))
          .map((labelValue) => `${name}: ${sample.name} ${labelValue}`),
      ),
    );
    expect(offending).toEqual([]);
    for (const name of PROCESSES) for (const text of [app.apiKey, app.appSecret, secret]) expect(scrapedText[name]).not.toContain(text);
  });

  it('the page cache reports hits and misses, a hit ratio between 0 and 1 (above 0 after a repeated page), and its size', () => {
    const { gateway } = scraped;
    const hits = value(gateway, 'sandbox_page_cache_requests_total', { result: 'hit' });
    const misses = value(gateway, 'sandbox_page_cache_requests_total', { result: 'miss' });
    expect(hits).toBeGreaterThanOrEqual(2);
    expect(misses).toBeGreaterThanOrEqual(1);
    const ratio = value(gateway, 'sandbox_page_cache_hit_ratio', {});
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThanOrEqual(1);
    expect(ratio).toBeCloseTo(hits / (hits + misses), 10);
    expect(gateway.types.get('sandbox_page_cache_hit_ratio')).toBe('gauge');
    expect(value(gateway, 'sandbox_page_cache_bytes', {})).toBeGreaterThan(0);
  });

  it('the refused production credential is counted under its pattern, every other pattern at 0', () => {
    const refusals = find(scraped.gateway, 'sandbox_production_credential_refusals_total');
    expect(value(scraped.gateway, 'sandbox_production_credential_refusals_total', { kind: 'aws-access-key-id' })).toBe(1);
    expect(refusals.length).toBeGreaterThan(10);
    for (const sample of refusals) {
      expect(sample.labels.kind).toMatch(/^[a-z0-9-]+$/);
      if (sample.labels.kind !== 'aws-access-key-id') expect(sample.value).toBe(0);
    }
  });

  it("the gateway's client calls and the services' server calls agree on data GetPage, by code", () => {
    const client = value(scraped.gateway, 'sandbox_grpc_client_calls_total', { service: 'data', method: 'GetPage', code: 'OK' });
    const server = value(scraped.data, 'sandbox_grpc_server_calls_total', { service: 'data', method: 'GetPage', code: 'OK' });
    // Three distinct pages were asked for, once each (the repeats came from the cache).
    expect(client).toBeGreaterThanOrEqual(3);
    expect(server).toBe(client);
    expect(value(scraped.gateway, 'sandbox_grpc_client_call_duration_seconds_count', { service: 'data', method: 'GetPage' })).toBe(client);
    expect(value(scraped.data, 'sandbox_grpc_server_call_duration_seconds_count', { service: 'data', method: 'GetPage' })).toBe(server);
    expect(value(scraped.gateway, 'sandbox_grpc_client_calls_total', { service: 'identity', method: 'VerifyApiKey', code: 'OK' })).toBeGreaterThanOrEqual(1);
    expect(value(scraped.gateway, 'sandbox_grpc_client_calls_total', { service: 'playground', method: 'Echo', code: 'OK' })).toBe(1);
    expect(value(scraped.playground, 'sandbox_grpc_server_calls_total', { service: 'playground', method: 'Echo', code: 'OK' })).toBe(1);
    expect(value(scraped.identity, 'sandbox_grpc_server_calls_total', { service: 'identity', method: 'Register', code: 'OK' })).toBe(1);
    expect(value(scraped.oauth, 'sandbox_grpc_server_calls_total', { service: 'oauth', method: 'Token', code: 'OK' })).toBeGreaterThanOrEqual(1);
  });

  it('health checks are counted nowhere, and every code label is a gRPC status name', () => {
    for (const name of PROCESSES) {
      for (const series of ['sandbox_grpc_client_calls_total', 'sandbox_grpc_server_calls_total']) {
        for (const { labels } of find(scraped[name], series)) {
          expect(labels.method).not.toBe('Check');
          expect(labels.method).toMatch(/^[A-Z][A-Za-z0-9]+$/);
          expect(labels.code).toMatch(/^[A-Z_]+$/);
        }
      }
    }
  });

  it('identity counts its MongoDB operations and oauth its Redis ones (and its calls to identity)', () => {
    expect(value(scraped.identity, 'sandbox_store_operations_total', { store: 'mongodb', operation: 'users.insert', outcome: 'ok' })).toBe(1);
    expect(value(scraped.identity, 'sandbox_store_operations_total', { store: 'mongodb', operation: 'apps.insert', outcome: 'ok' })).toBe(1);
    expect(value(scraped.identity, 'sandbox_store_operation_duration_seconds_count', { store: 'mongodb', operation: 'users.insert' })).toBe(1);
    const oauthOps = find(scraped.oauth, 'sandbox_store_operations_total', { store: 'redis' });
    expect(oauthOps.map((s) => s.labels.operation)).toContain('ephemeral.put');
    for (const sample of oauthOps) expect(sample.labels.outcome === 'ok' || sample.value === 0).toBe(true);
    const oauthToIdentity = find(scraped.oauth, 'sandbox_grpc_client_calls_total', { service: 'identity', code: 'OK' });
    expect(oauthToIdentity.reduce((sum, s) => sum + s.value, 0)).toBeGreaterThanOrEqual(1);
  });

  it('the metrics port serves nothing of the API, and the API port does not serve /metrics', async () => {
    const metricsPort = new URL(system.metricsUrls!.gateway).port;
    const health = await rawRequest(`http://127.0.0.1:${metricsPort}/health`);
    expect(health.status).toBe(404);
    expect(health.headers['content-type']).toMatch(/^text\/plain/);
    const onApi = await rawRequest(`${system.baseUrl}/metrics`, { headers: { 'X-Request-Id': 'metrics-404' } });
    expect(onApi.status).toBe(404);
    expect(onApi.json()).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/metrics'), requestId: 'metrics-404' } });
  });
});
