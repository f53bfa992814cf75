// Benchmark for the OAuth and auth-playground issues: uncacheable auth routes
// through the gateway, beside a bare node:http server answering the same bytes
// (the baseline), in one run, rounds interleaved, medians quoted.
//
//   npm run build && node bench/auth-routes.mjs [--rounds 3] [--duration 8] [--connections 16]
//
// Routes: GET /playground/auth/api-key (x-api-key), GET /playground/auth/hmac
// (a fresh signature per request: each may be used once), POST /oauth/token
// (client credentials, Basic), and the data page with an OAuth 2.0 access
// token. No target is set here: the gRPC hop's cost is the subject of the
// cheap-hop issue; these are the figures it starts from.
import { createHmac } from 'node:crypto';
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ROOT, freePort, median, numberArg, startSandbox } from './lib.mjs';

const rounds = numberArg('rounds', 3);
const duration = numberArg('duration', 8);
const connections = numberArg('connections', 16);

/** Runs autocannon; `next` (optional) gives each request its own headers. */
async function measure(url, { method = 'GET', headers = {}, body, next } = {}) {
  const request = { method, headers, body, ...(next ? { setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...next() } }) } : {}) };
  const result = await autocannon({ url, connections, duration, pipelining: 1, requests: [request] });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${method} ${url}: ${result.non2xx} non-2xx and ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const sandbox = await startSandbox();
const call = async (method, path, { body, token, headers = {} } = {}) => {
  const res = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: {
      ...(body && typeof body === 'object' ? { 'Content-Type': 'application/json' } : {}),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
};
try {
  // Each HMAC signature may be used once, and one (app, second) gives one: enough apps and
  // timestamps across the accepted window (±300 s) for every request of every round.
  const apps = [];
  for (let user = 0; user < 3; user++) {
    const { token } = await call('POST', '/api/auth/register', { body: { email: `bench-${user}-${Date.now()}@example.org`, password: 'bench-password-1' } });
    for (let i = 0; i < 50; i++) apps.push(await call('POST', '/api/apps', { token, body: { name: `bench ${user}-${i}` } }));
  }
  const [app] = apps;
  const basic = `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
  const tokenBody = 'grant_type=client_credentials&scope=hr%3Aread';
  const { access_token: accessToken } = await call('POST', '/oauth/token', {
    body: tokenBody,
    headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
  });

  let signatures = 0;
  const started = Math.floor(Date.now() / 1000);
  const hmacHeaders = () => {
    const n = signatures++;
    const signer = apps[n % apps.length];
    // Timestamps walk back from now through the window, so none repeats for an app within a run.
    const timestamp = String(started + 290 - Math.floor(n / apps.length));
    const signature = createHmac('sha256', signer.apiKey).update(`${timestamp}.GET./playground/auth/hmac`).digest('hex');
    return { 'x-app-id': signer.appId, 'x-timestamp': timestamp, 'x-signature': signature };
  };

  const bareBody = Buffer.from(JSON.stringify(await call('GET', '/playground/auth/api-key', { headers: { 'x-api-key': app.apiKey } })));
  const port = await freePort();
  const bareChild = fork(join(ROOT, 'bench/bare-server.mjs'), {
    env: {
      PORT: String(port),
      FRAMEWORK: 'node',
      BODY_BASE64: bareBody.toString('base64'),
      HEADERS_JSON: JSON.stringify({ 'content-type': 'application/json; charset=utf-8' }),
    },
    stdio: 'inherit',
  });
  await new Promise((resolve) => bareChild.once('message', resolve));

  const targets = {
    bare: () => measure(`http://127.0.0.1:${port}/`),
    apiKey: () => measure(`${sandbox.baseUrl}/playground/auth/api-key`, { headers: { 'x-api-key': app.apiKey } }),
    hmac: () => measure(`${sandbox.baseUrl}/playground/auth/hmac`, { next: hmacHeaders }),
    token: () =>
      measure(`${sandbox.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: tokenBody,
      }),
    dataWithOAuthToken: () => measure(`${sandbox.baseUrl}/playground/data/hr/employees?page_size=50`, { headers: { Authorization: `Bearer ${accessToken}` } }),
  };
  const runs = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const [name, run] of Object.entries(targets)) runs[name].push(await run());
    console.error(
      `round ${round}/${rounds}: ${Object.entries(runs)
        .map(([name, list]) => `${name} ${list.at(-1).rps.toFixed(0)}`)
        .join(', ')} rps`,
    );
    if (signatures > apps.length * 580) throw new Error('more HMAC requests than fresh signatures: add apps');
  }
  bareChild.kill();

  const medians = Object.fromEntries(
    Object.entries(runs).map(([name, list]) => [
      name,
      { rps: median(list.map((r) => r.rps)), p50: median(list.map((r) => r.p50)), p99: median(list.map((r) => r.p99)) },
    ]),
  );
  const ratios = Object.fromEntries(
    Object.keys(targets)
      .filter((n) => n !== 'bare')
      .map((name) => [`${name}VsBare`, medians[name].rps / medians.bare.rps]),
  );
  const report = {
    when: new Date().toISOString(),
    machine: { cores: (await import('node:os')).cpus().length, node: process.version },
    rounds,
    duration,
    connections,
    medians,
    ratios,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/auth-routes-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
} finally {
  await sandbox.stop();
}
