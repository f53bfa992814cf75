// The store work per request (issue #32): the embedded default (memory stores,
// one process each) and REPLICAS=2 with real stores (FerretDB on PostgreSQL,
// Redis), in one run, under the same load at the same concurrency, both
// gateways of the replicated sandbox sharing the connections.
//
// Two kinds of phase, rounds interleaved, medians quoted:
//   - one route family at a time (so every operation in a phase is that
//     family's): store operations per request, MongoDB and Redis apart, both as
//     the sandbox's store metrics counted them (sandbox_store_operations_total,
//     by service and operation) and as the stores answered them (FerretDB's
//     serverStatus commands, Redis's INFO commandstats); the stores' CPU
//     seconds per request (FerretDB, PostgreSQL with its backends, Redis, from
//     /proc); requests/s and p50/p99 of each sandbox;
//   - the mix (every family, each connection cycling through them): requests/s,
//     p50/p99, unexpected answers, store operations and CPU per request; the
//     replicated sandbox's requests/s over the embedded default's, per round.
// Before each phase's figures are taken, the sandbox is left SETTLE seconds
// for the gateways' request-log flushes (every second) and identity's owed
// trims (5 s after) of the phase to land in it. What the idle sandboxes do
// anyway (health checks, each identity's sweep every minute, the gateways'
// polls) is measured once, over IDLE seconds with every sandbox idle, and
// its rate over the phase's time subtracted: a sweep is a scan of a whole
// collection, and a window shorter than its minute catches it or not.
//
//   npm run bench:store-work             (provisions the stores, as the soak does)
//   MONGO_URL=... REDIS_URL=... node bench/store-work.mjs [--rounds 3] [--duration 8]
//     [--mix-duration 20] [--connections 100] [--settle 6] [--idle 60] [--families data-api-key,portal]
//     [--targets embedded,replicated] [--no-mix] [--before DIR] [--build NAME=DIR ...]
//
// --before DIR adds a third sandbox, `before`: REPLICAS=2 with the same stores
// (a database of its own), run from another checkout's build (e.g. the commit
// before a change, built), so a change is judged against it within one run.
// --build NAME=DIR (repeatable) adds one more such sandbox, named NAME.
//
// Goals (issue #32), judged on the replicated sandbox's medians: a data page
// or playground request with a valid credential at most 0.05 MongoDB
// operations, a portal read at most 1, an OAuth token at most 1 MongoDB and 2
// Redis; the mix at least 0.8x the embedded default's requests/s, p99 at most
// 150 ms, zero unexpected answers.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ROOT, call, cpuSeconds, exitWithHelpIfAsked, freePort, median, numberArg, startSandbox } from './lib.mjs';
import { startReplicatedSandbox } from './mixed-load.mjs';
import { answeredRequests, countedOperations, difference, metricsUrls, storeClients, storeCpu, storeProcesses, sum } from './store-figures.mjs';

exitWithHelpIfAsked(import.meta.url);
const rounds = numberArg('rounds', 3);
const duration = numberArg('duration', 8);
const mixDuration = numberArg('mix-duration', 20);
const connections = numberArg('connections', 100);
const settleMs = numberArg('settle', 6) * 1000;
const idleMs = numberArg('idle', 60) * 1000;
const listArg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1].split(',') : undefined;
};
const onlyFamilies = listArg('families');
/** Other checkouts' builds to run as replicated sandboxes: name → directory. */
const builds = Object.fromEntries(
  process.argv.flatMap((arg, i) => {
    if (process.argv[i - 1] === '--before') return [['before', arg]];
    if (process.argv[i - 1] === '--build') return [arg.split(/=(.*)/s).slice(0, 2)];
    return [];
  }),
);
const targets = listArg('targets') ?? ['embedded', 'replicated', ...Object.keys(builds)];
const withMix = !process.argv.includes('--no-mix');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round2 = (n) => (n === undefined || n === null || !Number.isFinite(n) ? n : Math.round(n * 1000) / 1000);

/** The goals of issue #32 per family, MongoDB and Redis operations per request (undefined: no goal). */
const GOALS = {
  'data-api-key': { mongo: 0.05 },
  'data-bearer': { mongo: 0.05 },
  'data-oauth2': { mongo: 0.05 },
  'data-cursor': { mongo: 0.05 },
  'playground-basic': { mongo: 0.05 },
  portal: { mongo: 1 },
  'oauth-token': { mongo: 1, redis: 2 },
};

/**
 * The route families of the issue's mix, each one request autocannon repeats:
 * data pages with an API key, the app's bearer token, an OAuth 2.0 access
 * token and a cursor; a playground request with a credential (Basic); the
 * portal's app list; echo; a client-credentials token; /health/ready.
 */
async function families(baseUrl, label) {
  const { token: session } = await call(baseUrl, 'POST', '/api/auth/register', {
    body: { email: `${label}-${Date.now()}@example.org`, password: 'bench-password-1' },
  });
  const app = await call(baseUrl, 'POST', '/api/apps', { token: session, body: { name: `${label} app` } });
  const basic = `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
  const tokenRequest = {
    method: 'POST',
    headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=hr%3Aread',
  };
  const tokenAnswer = await fetch(`${baseUrl}/oauth/token`, tokenRequest);
  if (tokenAnswer.status !== 200) throw new Error(`/oauth/token: ${tokenAnswer.status} ${await tokenAnswer.text()}`);
  const { access_token: accessToken } = await tokenAnswer.json();
  const page = (n) => `/playground/data/hr/employees?page=${n}&page_size=20`;
  const cursorFirst = await fetch(`${baseUrl}/playground/data/hr/employees?paginate=cursor&page_size=20`, { headers: { 'x-api-key': app.apiKey } });
  if (cursorFirst.status !== 200) throw new Error(`cursor page: ${cursorFirst.status} ${await cursorFirst.text()}`);
  const { pagination } = await cursorFirst.json();
  const all = {
    'data-api-key': { path: page(1), headers: { 'x-api-key': app.apiKey } },
    'data-bearer': { path: page(2), headers: { Authorization: `Bearer ${app.bearerToken}` } },
    'data-oauth2': { path: page(3), headers: { Authorization: `Bearer ${accessToken}` } },
    // pagination.next is the next page's path and query, cursor included.
    'data-cursor': { path: pagination.next, headers: { 'x-api-key': app.apiKey } },
    'playground-basic': { path: '/playground/auth/basic', headers: { Authorization: basic } },
    portal: { path: '/api/apps', headers: { Authorization: `Bearer ${session}` } },
    echo: { path: '/playground/echo?x=1' },
    'oauth-token': { path: '/oauth/token', ...tokenRequest },
    'health-ready': { path: '/health/ready' },
  };
  return Object.fromEntries(Object.entries(all).filter(([name]) => !onlyFamilies || onlyFamilies.includes(name)));
}

/** autocannon over every gateway at once, the connections split between them; statuses counted. */
async function loadOver(gateways, requests, seconds) {
  const statuses = {};
  const firstUnexpected = [];
  const runs = gateways.map((url) =>
    autocannon({
      url,
      connections: Math.ceil(connections / gateways.length),
      duration: seconds,
      pipelining: 1,
      timeout: 30,
      requests: requests.map(({ family, ...r }) => ({
        method: 'GET',
        ...r,
        onResponse: (status, body) => {
          const key = `${family} ${status}`;
          statuses[key] = (statuses[key] ?? 0) + 1;
          if (status >= 300 && firstUnexpected.length < 5) firstUnexpected.push({ family, status, body: String(body).slice(0, 200) });
        },
      })),
    }),
  );
  const results = await Promise.all(runs);
  const total = (field) => results.reduce((n, r) => n + field(r), 0);
  const unexpected =
    Object.entries(statuses).reduce((n, [key, count]) => n + (Number(key.split(' ')[1]) >= 300 ? count : 0), 0) +
    total((r) => r.errors) +
    total((r) => r.timeouts);
  return {
    requests: total((r) => r.requests.total),
    rps: total((r) => r.requests.average),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    unexpected,
    statuses,
    firstUnexpected,
  };
}

/** Everything counted about a sandbox and its stores at one moment. */
async function snapshot(target) {
  const [counted, mongo, redis] = await Promise.all([countedOperations(target.metrics), target.stores.mongoCommands(), target.stores.redisCommands()]);
  const sandboxCpuByProcess = {};
  for (const [label, pid] of Object.entries(target.sandbox.processes())) {
    const name = label.replace(/#\d+$/, '');
    sandboxCpuByProcess[name] = (sandboxCpuByProcess[name] ?? 0) + cpuSeconds(pid);
  }
  const sandboxCpu = sum(sandboxCpuByProcess);
  const answered = await answeredRequests(target.metrics.filter((m) => m.service === 'gateway'));
  return { at: Date.now(), counted, mongo, redis, storeCpu: storeCpu(target.storeProcesses), sandboxCpu, sandboxCpuByProcess, answered };
}

/** What happened between two snapshots, as totals and per-operation counts. */
function between(before, after) {
  const counted = difference(before.counted, after.counted);
  const cpu = difference(before.storeCpu, after.storeCpu);
  return {
    seconds: (after.at - before.at) / 1000,
    counted,
    mongo: difference(before.mongo, after.mongo),
    redis: difference(before.redis, after.redis),
    storeCpu: cpu,
    sandboxCpu: after.sandboxCpu - before.sandboxCpu,
    sandboxCpuByProcess: difference(before.sandboxCpuByProcess, after.sandboxCpuByProcess),
    answered: after.answered - before.answered,
  };
}

/** Per request, with the idle sandbox's background work over the same time taken away. */
function perRequest(work, idle, requests) {
  if (!requests) return { noneAnswered: true };
  const scale = idle ? work.seconds / idle.seconds : 0;
  /** Counts below half an operation after the subtraction are noise; CPU seconds are kept whatever they are. */
  const net = (counts, idleCounts = {}, least = 0.5) => {
    const out = {};
    for (const key of new Set([...Object.keys(counts), ...Object.keys(idleCounts)])) {
      const value = (counts[key] ?? 0) - (idleCounts[key] ?? 0) * scale;
      if (Math.abs(value) >= least) out[key] = value;
    }
    return out;
  };
  const counted = net(work.counted, idle?.counted);
  const kind = (store) => Object.fromEntries(Object.entries(counted).filter(([key]) => key.split(' ')[1] === store));
  const each = (counts) =>
    Object.fromEntries(
      Object.entries(counts)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => [k, round2(v / requests)]),
    );
  const mongoWire = net(work.mongo, idle?.mongo);
  const redisWire = net(work.redis, idle?.redis);
  const storeCpu = net(work.storeCpu, idle?.storeCpu, 0);
  return {
    mongoCounted: round2(sum(kind('mongodb')) / requests),
    redisCounted: round2(sum(kind('redis')) / requests),
    memoryCounted: round2(sum(kind('memory')) / requests),
    mongoWire: round2(sum(mongoWire) / requests),
    redisWire: round2(sum(redisWire) / requests),
    storeCpuMsPerRequest: Object.keys(work.storeCpu).length ? round2((sum(storeCpu) * 1000) / requests) : undefined,
    storeCpuMsByProcess: Object.fromEntries(Object.entries(storeCpu).map(([k, v]) => [k, round2((v * 1000) / requests)])),
    // What one MongoDB operation costs the MongoDB-wire server here (FerretDB and its PostgreSQL): the ceiling's own figure.
    mongoCpuMsPerOperation:
      sum(mongoWire) >= 1 && storeCpu.ferretdb !== undefined
        ? round2((((storeCpu.ferretdb ?? 0) + (storeCpu.postgres ?? 0)) * 1000) / sum(mongoWire))
        : undefined,
    sandboxCpuMsPerRequest: round2((work.sandboxCpu * 1000) / requests),
    sandboxCpuMsByProcess: Object.fromEntries(Object.entries(work.sandboxCpuByProcess).map(([k, v]) => [k, round2((v * 1000) / requests)])),
    countedByOperation: each(counted),
    mongoByCommand: each(mongoWire),
    redisByCommand: each(redisWire),
  };
}

async function start(name) {
  const ports = {};
  for (const variable of ['METRICS_PORT', 'IDENTITY_METRICS_PORT', 'OAUTH_METRICS_PORT', 'DATA_METRICS_PORT', 'PLAYGROUND_METRICS_PORT'])
    ports[variable] = String(await freePort());
  const sandbox = name === 'embedded' ? await startSandbox(ports) : await startReplicatedSandbox(`store-work-${name}`, ports, process.env, builds[name]);
  const gateways = sandbox.gateways ?? [sandbox.baseUrl];
  const expected = name === 'embedded' ? 5 : 10;
  let metrics = metricsUrls(sandbox.logFile);
  for (let i = 0; metrics.length < expected && i < 100; i++) {
    await sleep(50);
    metrics = metricsUrls(sandbox.logFile);
  }
  if (metrics.length < expected) throw new Error(`${name}: ${metrics.length} metrics listeners in ${sandbox.logFile}, expected ${expected}`);
  const real = name !== 'embedded';
  const stores = await storeClients(real ? process.env.MONGO_URL : undefined, real ? process.env.REDIS_URL : undefined);
  const processes = real ? storeProcesses(process.env.MONGO_URL, process.env.REDIS_URL) : {};
  const target = { name, sandbox, gateways, metrics, stores, storeProcesses: processes };
  target.requests = await families(gateways[0], `store-work-${name}`);
  return target;
}

if (targets.some((name) => name !== 'embedded') && (!process.env.MONGO_URL || !process.env.REDIS_URL)) {
  console.error('store-work: the replicated sandbox needs MONGO_URL and REDIS_URL (npm run bench:store-work provisions both)');
  process.exit(2);
}

const started = [];
// Interrupted: the sandboxes go with this process, not left running.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    Promise.allSettled(started.map((target) => target.sandbox.stop())).then(() => process.exit(130));
  });
}
try {
  for (const name of targets) started.push(await start(name));
  const found = started.find((t) => t.name !== 'embedded')?.storeProcesses;
  if (found) console.error(`store processes: ${JSON.stringify(found)}`);
  const familyNames = Object.keys(started[0].requests);
  /** runs[target][family] = per-round figures; mixRuns[target] likewise. */
  const runs = Object.fromEntries(started.map((t) => [t.name, {}]));
  const mixRuns = Object.fromEntries(started.map((t) => [t.name, []]));
  // Every sandbox idle at once: the background of each (its counted operations) and of the stores (all of it).
  await sleep(settleMs);
  const idleStart = await Promise.all(started.map(snapshot));
  await sleep(idleMs);
  const idle = Object.fromEntries(await Promise.all(started.map(async (target, i) => [target.name, between(idleStart[i], await snapshot(target))])));
  /** One load over a target's gateways, with the store and CPU work it caused per answered request (its idle work taken out). */
  const measure = async (target, requests, seconds) => {
    const before = await snapshot(target);
    const load = await loadOver(target.gateways, requests, seconds);
    await sleep(settleMs);
    const work = between(before, await snapshot(target));
    const figures = {
      rps: load.rps,
      p50: load.p50,
      p99: load.p99,
      requests: load.requests,
      answered: work.answered,
      unexpected: load.unexpected,
      statuses: load.statuses,
      ...perRequest(work, idle[target.name], work.answered),
    };
    if (load.unexpected) figures.firstUnexpected = load.firstUnexpected;
    return { load, figures };
  };
  const loads = [];
  for (let round = 0; round < rounds; round++) {
    loads.push(loadavg()[0]);
    // The order of the sandboxes swaps every round: neither always runs on a machine the other just warmed or loaded.
    const order = round % 2 === 0 ? started : [...started].reverse();
    for (const target of order) {
      for (const family of familyNames) {
        const { load, figures } = await measure(target, [{ family, ...target.requests[family] }], duration);
        (runs[target.name][family] ??= []).push(figures);
        console.error(
          `round ${round + 1} ${target.name} ${family}: ${load.rps.toFixed(0)}/s p99 ${load.p99} ms, mongo ${figures.mongoWire} (counted ${figures.mongoCounted}), redis ${figures.redisWire} (counted ${figures.redisCounted}), store CPU ${figures.storeCpuMsPerRequest ?? '-'} ms/req, unexpected ${load.unexpected}`,
        );
      }
    }
    // The mixes of every sandbox back to back, so each round's ratio compares figures taken within a minute or two.
    if (withMix) {
      for (const target of order) {
        const mix = familyNames.map((family) => ({ family, ...target.requests[family] }));
        const { load, figures } = await measure(target, mix, mixDuration);
        mixRuns[target.name].push(figures);
        console.error(
          `round ${round + 1} ${target.name} mix: ${load.rps.toFixed(0)}/s p50 ${load.p50} ms p99 ${load.p99} ms, mongo ${figures.mongoWire}/req, redis ${figures.redisWire}/req, store CPU ${figures.storeCpuMsPerRequest ?? '-'} ms/req, unexpected ${load.unexpected}`,
        );
      }
    }
  }

  const medianOf = (list, field) => round2(median(list.map((f) => f[field]).filter((v) => v !== undefined)));
  const MEDIAN_FIELDS = [
    'rps',
    'p50',
    'p99',
    'mongoCounted',
    'redisCounted',
    'memoryCounted',
    'mongoWire',
    'redisWire',
    'storeCpuMsPerRequest',
    'mongoCpuMsPerOperation',
    'sandboxCpuMsPerRequest',
  ];
  const summarise = (list) => ({
    ...Object.fromEntries(MEDIAN_FIELDS.map((field) => [field, medianOf(list, field)])),
    unexpected: list.reduce((n, f) => n + f.unexpected, 0),
    statuses: list.reduce((all, f) => {
      for (const [key, count] of Object.entries(f.statuses ?? {})) all[key] = (all[key] ?? 0) + count;
      return all;
    }, {}),
    firstUnexpected: list.find((f) => f.firstUnexpected)?.firstUnexpected,
    // The operations of the round whose MongoDB count was the median: what the figure is made of.
    breakdown: (() => {
      const sorted = [...list].sort((a, b) => a.mongoWire - b.mongoWire);
      const { countedByOperation, mongoByCommand, redisByCommand, storeCpuMsByProcess, sandboxCpuMsByProcess } = sorted[Math.floor(sorted.length / 2)];
      return { countedByOperation, mongoByCommand, redisByCommand, storeCpuMsByProcess, sandboxCpuMsByProcess };
    })(),
  });
  const byFamily = Object.fromEntries(
    Object.entries(runs).map(([name, fams]) => [name, Object.fromEntries(Object.entries(fams).map(([family, list]) => [family, summarise(list)]))]),
  );
  const mix = Object.fromEntries(
    Object.entries(mixRuns)
      .filter(([, list]) => list.length)
      .map(([name, list]) => [name, summarise(list)]),
  );
  /** The median over rounds of one sandbox's mix requests/s over another's (each round's pair measured within a minute). */
  const rpsRatio = (a, b) => (mixRuns[a]?.length && mixRuns[b]?.length ? round2(median(mixRuns[a].map((r, i) => r.rps / mixRuns[b][i].rps))) : undefined);
  const ratio = rpsRatio('replicated', 'embedded');
  const replicated = byFamily.replicated ?? {};
  const goals = Object.fromEntries(
    Object.entries(GOALS)
      .filter(([family]) => replicated[family])
      .map(([family, goal]) => {
        const figures = replicated[family];
        const met = (goal.mongo === undefined || figures.mongoWire <= goal.mongo) && (goal.redis === undefined || figures.redisWire <= goal.redis);
        return [family, { goal, mongo: figures.mongoWire, redis: figures.redisWire, met }];
      }),
  );
  if (mix.replicated) {
    goals.mix = {
      goal: { rpsVsEmbedded: 0.8, p99Ms: 150, unexpected: 0 },
      rpsVsEmbedded: ratio,
      p99Ms: mix.replicated.p99,
      unexpected: mix.replicated.unexpected,
      met: (ratio === undefined || ratio >= 0.8) && mix.replicated.p99 <= 150 && mix.replicated.unexpected === 0,
    };
  }
  const report = {
    when: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version, loadAverage1m: loads.map((l) => Math.round(l * 10) / 10) },
    rounds,
    duration,
    mixDuration,
    connections,
    settleSeconds: settleMs / 1000,
    // What was subtracted: every store's and each sandbox's background, per second, with every sandbox idle.
    background: Object.fromEntries(
      Object.entries(idle).map(([name, work]) => {
        const rate = (counts) => round2(sum(counts) / work.seconds);
        return [
          name,
          {
            seconds: work.seconds,
            countedPerSecond: rate(work.counted),
            mongoPerSecond: rate(work.mongo),
            redisPerSecond: rate(work.redis),
            storeCpuPerSecond: rate(work.storeCpu),
            mongoByCommand: work.mongo,
          },
        ];
      }),
    ),
    families: Object.fromEntries(
      familyNames.map((f) => [f, `${started[0].requests[f].method ?? 'GET'} ${started[0].requests[f].path.replace(/cursor=[^&]+/, 'cursor=…')}`]),
    ),
    byFamily,
    mix,
    mixReplicatedVsEmbedded: ratio,
    // Every other build's mix against the embedded default and against this build's.
    mixBuildsVsEmbedded: Object.fromEntries(Object.keys(builds).map((name) => [name, rpsRatio(name, 'embedded')])),
    mixReplicatedVsBuilds: Object.fromEntries(Object.keys(builds).map((name) => [name, rpsRatio('replicated', name)])),
    goals,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/store-work-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
} finally {
  for (const target of started) {
    await target.stores.close().catch(() => undefined);
    await target.sandbox.stop();
  }
}
