import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, isolatedMongoUrl, rawRequest, rawSocketExchange, requireStoreUrls, type RunningSystem, startSystem } from '@sandbox/testing';

jest.setTimeout(60_000);
const ROOT = join(__dirname, '..', '..', '..', '..');

describe('the whole sandbox as npm start runs it, with real MongoDB and Redis', () => {
  let system: RunningSystem;
  const get = (path: string, headers: Record<string, string> = {}) => rawRequest(`${system.baseUrl}${path}`, { headers });
  const ready = () => get('/health/ready');

  beforeAll(async () => {
    system = await startSystem({ MONGO_URL: isolatedMongoUrl('system'), REDIS_URL: requireStoreUrls().redisUrl, TRUST_PROXY: 'true' });
  });
  afterAll(async () => system?.stop());

  it('GET / shows the name, version 1.0.0 and absolute links', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ name: 'Training Sandbox API', version: '1.0.0' });
    expect(res.json().links.health).toBe(`${system.baseUrl}/health`);
  });

  it('GET /health answers ok', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /health/ready is 200 with every service and both stores up', async () => {
    const res = await ready();
    expect(res.status).toBe(200);
    const { components } = res.json();
    for (const name of ['identity', 'oauth', 'data', 'playground', 'mongodb', 'redis']) expect(components[name]).toMatchObject({ status: 'up' });
    expect(components.mongodb.via).toBe('identity');
    // Identity's sign-in counts, oauth's codes and tokens, the gateway's change feed: one Redis here, reached by all three.
    expect(components.redis.via).toBe('identity, oauth, gateway');
    // Answered from verdicts kept current in the background, each saying how old it is.
    for (const name of Object.keys(components))
      expect(components[name]).toEqual(expect.objectContaining({ checkedAt: expect.any(String), ageMs: expect.any(Number) }));
  });

  it('behind a trusted proxy, absolute links follow X-Forwarded-Proto, Host and Prefix', async () => {
    const res = await get('/', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'edu.example.org', 'X-Forwarded-Prefix': '/sandbox' });
    expect(res.json().links.self).toBe('https://edu.example.org/sandbox/');
  });

  it('GET /playground lists the playground endpoints from the route table, with absolute URLs', async () => {
    const res = await get('/playground');
    expect(res.status).toBe(200);
    const paths = res.json().endpoints.map((e: { path: string }) => e.path);
    expect(paths).toContain('/playground');
    for (const endpoint of res.json().endpoints) expect(endpoint.url).toBe(`${system.baseUrl}${endpoint.path}`);
  });

  it('every response carries a request id; an acceptable caller id is echoed, a hostile one replaced', async () => {
    expect((await get('/health')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get('/health', { 'X-Request-Id': 'trace-42' })).headers['x-request-id']).toBe('trace-42');
    // Replaced by an id of ours (a UUID: checking it does not contain 'bad' failed once, on a UUID with 'bad2' in it).
    expect((await get('/health', { 'X-Request-Id': 'bad id\twith spaces' })).headers['x-request-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });

  it('an unknown route is a 404 in the error shape, never HTML', async () => {
    const res = await get('/no/such/thing', { 'X-Request-Id': 'r-404' });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/no/such/thing'), requestId: 'r-404' } });
  });

  it('a known path with the wrong method is a 405 with Allow', async () => {
    const res = await rawRequest(`${system.baseUrl}/health`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.json().error.code).toBe('method_not_allowed');
  });

  it('malformed JSON is a 400 naming the problem, without a stack trace', async () => {
    const res = await rawRequest(`${system.baseUrl}/api/auth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":' });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('malformed_body');
    expect(res.body).not.toMatch(/at .+\.js:\d+/);
  });

  it.each([
    ['a raw non-ASCII character in the URL', 'GET /health?name=\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
    ['not HTTP at all', 'HELLO THERE\r\n\r\n', 400, 'malformed_request'],
    ['headers larger than node accepts', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
  ])('a request the HTTP parser refuses (%s) is answered in the error shape', async (_what, request, status, code) => {
    const answer = await rawSocketExchange(system.baseUrl, request);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${STATUS_CODES[status]}`);
    expect(head).toMatch(/\r\ncontent-type: application\/json; charset=utf-8/i);
    expect(JSON.parse(body)).toEqual({ error: { code, message: expect.any(String), requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
  });

  it('an oversized body is a 413 in the error shape', async () => {
    const body = JSON.stringify({ blob: 'x'.repeat(1_100_000) });
    const res = await rawRequest(`${system.baseUrl}/api/auth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(res.status).toBe(413);
    expect(res.json().error.code).toBe('body_too_large');
  });

  it('CORS: any origin may read responses and the paging and tracing headers', async () => {
    const res = await get('/health', { Origin: 'https://learner.example' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toEqual(expect.stringContaining('X-Request-Id'));
  });

  it('nothing secret-looking is logged: no Authorization value or api_key reaches the logs', async () => {
    await get('/health?api_key=ak_should_not_be_logged', { Authorization: 'Bearer bt_should_not_be_logged', 'X-Request-Id': 'log-check-1' });
    // Log lines are written in chunks, at most 250 ms after they were logged.
    await eventually(
      async () => system.output(),
      (out) => out.includes('"requestId":"log-check-1"'),
      10_000,
    );
    expect(system.output()).toContain('"path":"/health"');
    expect(system.output()).not.toContain('should_not_be_logged');
  });

  it('when one service stops, /health/ready answers 503 naming it, only its routes fail, and the gateway still serves; started again, 200 returns', async () => {
    await system.stopService('data');
    // A stopped process is named within a second or so (docs/deployment.md, Health); polled generously, as a busy machine may be slower.
    const down = await eventually(ready, (r) => r.status === 503, 10_000);
    expect(down.value.json()).toMatchObject({ status: 'unavailable', down: ['data'] });
    // The load balancer's readiness stays 200: the gateway serves everything that does not need data.
    const serving = await get('/health/serving');
    expect(serving.status).toBe(200);
    expect(serving.json()).toEqual({ status: 'ok' });
    expect((await get('/playground/echo?x=1')).status).toBe(200);
    const catalog = await get('/playground/data');
    expect(catalog.status).toBe(503);
    expect(catalog.headers['retry-after']).toBe('2');
    expect(catalog.json().error).toMatchObject({ code: 'service_unavailable', message: expect.stringContaining('The data service is unavailable') });

    await system.startService('data');
    const up = await eventually(ready, (r) => r.status === 200, 10_000);
    expect(up.value.json().status).toBe('ok');
  });

  it('the gateway serves HTTPS when given a certificate and key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost'],
      { stdio: 'ignore' },
    );
    const port = await freePort();
    const gateway = spawn(process.execPath, [join(ROOT, 'services/gateway/dist/main.js')], {
      env: { ...system.env, PORT: String(port), TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'key.pem') },
      stdio: 'ignore',
    });
    try {
      const res = await eventually(
        () => rawRequest(`https://127.0.0.1:${port}/`).catch(() => undefined),
        (r) => r?.status === 200,
        10_000,
      );
      expect(res.value!.json().links.self).toBe(`https://127.0.0.1:${port}/`);
    } finally {
      gateway.kill('SIGTERM');
    }
  });
});

describe('configuration fails fast', () => {
  it.each([
    ['data', { DATA_GRPC_PORT: 'abc' }, 'DATA_GRPC_PORT'],
    ['gateway', { TLS_CERT_FILE: '/tmp/cert.pem' }, 'TLS_CERT_FILE'],
    ['oauth', { REDIS_URL: 'http://not-redis' }, 'REDIS_URL'],
  ])('when %s gets a malformed variable, then it exits 1 with one line naming it', (service, env, variable) => {
    const result = spawnSync(process.execPath, [join(ROOT, `services/${service}/dist/main.js`)], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
  });
});
