// Benchmark for issue 4: the data endpoint through the gateway (page 1 and a
// deep page of the 1,000,000-row entity) against a bare node:http server that
// returns identical bytes. Targets: gateway >= 50% of bare requests/s, and the
// deep page <= 1.2x the cost of page 1. A bare express app serving the same
// bytes is measured too, as the ceiling of any express gateway. Rounds are
// interleaved and medians quoted, because this machine is noisy.
//
//   npm run build && node bench/data-pages.mjs [--rounds 3] [--duration 8] [--env NAME=VALUE ...]
//
// --env passes a variable to both sandboxes, e.g. --env ACCESS_LOG_LINES_PER_SECOND=1000000
// measures the gateway writing an access line for every request.
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, freePort, load, median, numberArg, startSandbox } from './lib.mjs';

const rounds = numberArg('rounds', 3);
const duration = numberArg('duration', 8);
const connections = numberArg('connections', 16);

const extraEnv = Object.fromEntries(process.argv.flatMap((a, i) => (process.argv[i - 1] === '--env' ? [a.split(/=(.*)/s).slice(0, 2)] : [])));
const sandbox = await startSandbox(extraEnv);
// The same system with the gateway's page cache off: every request renders its
// page in the data service, so page 1 against the deep page measures the
// rendering at depth, not the cache.
const uncached = await startSandbox({ ...extraEnv, DATA_PAGE_CACHE_MB: '0' });
try {
  // A learner's app in each system, registered the way the portal does it.
  const newApiKey = async (system) => {
    const post = (path, body, token) =>
      fetch(`${system.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const session = await post('/api/auth/register', { email: `bench-${Date.now()}@example.org`, password: 'bench-password-1' });
    if (session.status !== 201) throw new Error(`register: ${JSON.stringify(session.body)}`);
    const app = await post('/api/apps', { name: 'bench' }, session.body.token);
    if (app.status !== 201) throw new Error(`create app: ${JSON.stringify(app.body)}`);
    return app.body.apiKey;
  };
  const headers = { 'x-api-key': await newApiKey(sandbox) };
  const uncachedHeaders = { 'x-api-key': await newApiKey(uncached) };

  const catalog = await (await fetch(`${sandbox.baseUrl}/playground/data`)).json();
  const big = catalog.packs.flatMap((p) => p.entities.map((e) => ({ pack: p.name, ...e }))).find((e) => (e.rows ?? e.count ?? e.rowCount) >= 1_000_000);
  if (!big) throw new Error('no entity with 1,000,000 rows in the catalog');
  const page1 = `${sandbox.baseUrl}/playground/data/${big.pack}/${big.name}?page=1&page_size=50`;
  const deep = `${sandbox.baseUrl}/playground/data/${big.pack}/${big.name}?page=20000&page_size=50`;

  const first = await fetch(page1, { headers });
  if (first.status !== 200) throw new Error(`page 1: ${first.status} ${await first.text()}`);
  const body = Buffer.from(await first.arrayBuffer());
  const copied = {};
  for (const name of ['content-type', 'etag', 'cache-control', 'x-request-id', 'access-control-allow-origin', 'access-control-expose-headers']) {
    const value = first.headers.get(name);
    if (value) copied[name] = value;
  }
  const baseline = async (framework) => {
    const port = await freePort();
    const child = fork(join(ROOT, 'bench/bare-server.mjs'), {
      env: { PORT: String(port), FRAMEWORK: framework, BODY_BASE64: body.toString('base64'), HEADERS_JSON: JSON.stringify(copied) },
      stdio: 'inherit',
    });
    await new Promise((resolve) => child.once('message', resolve));
    return { child, url: `http://127.0.0.1:${port}/` };
  };
  const bare = await baseline('node');
  const bareExpress = await baseline('express');

  const runs = { bare: [], bareExpress: [], gatewayPage1: [], gatewayDeep: [], uncachedPage1: [], uncachedDeep: [] };
  const onUncached = (url) => url.replace(sandbox.baseUrl, uncached.baseUrl);
  for (let round = 1; round <= rounds; round++) {
    runs.bare.push(await load(bare.url, { duration, connections }));
    runs.bareExpress.push(await load(bareExpress.url, { duration, connections }));
    runs.gatewayPage1.push(await load(page1, { headers, duration, connections }));
    runs.gatewayDeep.push(await load(deep, { headers, duration, connections }));
    runs.uncachedPage1.push(await load(onUncached(page1), { headers: uncachedHeaders, duration, connections }));
    runs.uncachedDeep.push(await load(onUncached(deep), { headers: uncachedHeaders, duration, connections }));
    const last = (name) => runs[name].at(-1).rps.toFixed(0);
    console.error(
      `round ${round}/${rounds}: bare ${last('bare')}, bare express ${last('bareExpress')}, gateway page 1 ${last('gatewayPage1')}, deep ${last('gatewayDeep')}; without page cache: page 1 ${last('uncachedPage1')}, deep ${last('uncachedDeep')} rps`,
    );
  }
  bare.child.kill();
  bareExpress.child.kill();

  const summary = Object.fromEntries(
    Object.entries(runs).map(([name, list]) => [
      name,
      { rps: median(list.map((r) => r.rps)), p50: median(list.map((r) => r.p50)), p99: median(list.map((r) => r.p99)) },
    ]),
  );
  const gatewayVsBare = summary.gatewayPage1.rps / summary.bare.rps;
  const bareExpressVsBare = summary.bareExpress.rps / summary.bare.rps;
  // Cost per request is 1/rps, so the deep page's relative cost is rps(page 1) / rps(deep).
  const deepVsPage1 = summary.gatewayPage1.rps / summary.gatewayDeep.rps;
  const uncachedDeepVsPage1 = summary.uncachedPage1.rps / summary.uncachedDeep.rps;
  const uncachedVsBare = summary.uncachedPage1.rps / summary.bare.rps;
  const report = {
    when: new Date().toISOString(),
    machine: { cores: (await import('node:os')).cpus().length, node: process.version },
    entity: `${big.pack}/${big.name}`,
    env: extraEnv,
    bodyBytes: body.length,
    rounds,
    duration,
    connections,
    medians: summary,
    ratios: { gatewayVsBare, deepVsPage1, bareExpressVsBare, uncachedVsBare, uncachedDeepVsPage1 },
    targets: { gatewayVsBare: '>= 0.50', deepVsPage1: '<= 1.20' },
    pass: gatewayVsBare >= 0.5 && deepVsPage1 <= 1.2 && uncachedDeepVsPage1 <= 1.2,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/data-pages-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
  process.exitCode = report.pass ? 0 : 1;
} finally {
  await Promise.all([sandbox.stop(), uncached.stop()]);
}
