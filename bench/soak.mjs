// The soak of issue #21: two replicas of every process (REPLICAS=2) with real
// stores, 100 connections spread over both gateways, every route family in
// the mix (bench/mixed-load.mjs), for a fixed time. Rules: zero unexpected
// statuses (every answer 2xx; no error, no timeout), and no process's live
// heap (bench/live-heap.mjs: a heap snapshot's objects, after the full GC it
// forces) grows by more than its configured caches plus LIVE_HEAP_WARMUP_MIB
// (what a process takes on once it has served: compiled code, pools). RSS is
// reported, not judged: under load V8 keeps a larger heap than it needs, and
// the faster the garbage comes the larger (issue #32's soak at 2,000/s: RSS
// +130 to +210 MiB per process, live heap +1). Reported: requests/s, p50/p99,
// the RSS and live heap of every process before and after, the event-loop
// delay of each process's first replica, and the store
// work (bench/store-figures.mjs): the stores' CPU and the MongoDB and Redis
// operations they answered, per request (bench/store-work.mjs splits them by
// route family).
//
//   npm run soak                      (60 s; scripts/with-stores.sh provisions the stores)
//   MONGO_URL=... REDIS_URL=... node bench/soak.mjs [--duration 60] [--connections 100]
//
// RSS is judged by the first replica of each process, whose heap is not
// snapshotted before the load: writing a snapshot leaves its process
// holding tens of MiB it does not give back (malloc's), which an RSS taken
// afterwards counts as if the load had grown it (measured: +20 to +70 MiB
// per process). Live-heap growth is judged by the second replicas, which
// take the same share of the load. `rssOfChartLimit` is each first
// replica's RSS after the load as a share of its limit in the chart's
// values (issue #36's goal: at most 60%), reported, not judged.
//
// Exit code 1 when the rule fails. CI runs 15 s of it (soak.test.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { checklist } from './chaos/checklist.mjs';
import { ROOT, freePort, numberArg, rssMiB } from './lib.mjs';
import { liveHeapProbe } from './live-heap.mjs';
import { mixedRequests, runMixedLoad, startReplicatedSandbox } from './mixed-load.mjs';
import { difference, storeClients, storeCpu, storeProcesses, sum } from './store-figures.mjs';

const duration = numberArg('duration', 60);
/** What any process's live heap may grow by besides its caches, once it has served (measured: about 1 MiB after 180,000 requests). */
const LIVE_HEAP_WARMUP_MIB = 16;
/** The caches each process is configured with, in MiB: the gateway's data-page cache (DATA_PAGE_CACHE_MB, 64 by default). */
const cacheMiB = (name) => (name.startsWith('gateway') ? Number(process.env.DATA_PAGE_CACHE_MB ?? 64) : 0);
const connections = numberArg('connections', 100);
/** A service's memory limit in the chart's values (services.<name>.resources, else defaults.resources), in MiB. */
const chartValues = parse(readFileSync(join(ROOT, 'deploy/helm/training-sandbox/values.yaml'), 'utf8'));
const chartMemoryLimitMiB = (name) => {
  const limit = chartValues.services[name]?.resources?.limits?.memory ?? chartValues.defaults.resources.limits.memory;
  return Number(/^(\d+)Mi$/.exec(limit)[1]);
};

const metricsPorts = {};
for (const variable of ['METRICS_PORT', 'IDENTITY_METRICS_PORT', 'OAUTH_METRICS_PORT', 'DATA_METRICS_PORT', 'PLAYGROUND_METRICS_PORT'])
  metricsPorts[variable] = String(await freePort());
const heap = liveHeapProbe();
// SOAK_NODE_OPTIONS: options for every process besides the probe's (e.g. a heap size to compare two settings in like runs).
const nodeOptions = [heap.nodeOptions, process.env.SOAK_NODE_OPTIONS].filter(Boolean).join(' ');
const sandbox = await startReplicatedSandbox('soak', { ...metricsPorts, NODE_OPTIONS: nodeOptions });

/** prom-client's event-loop delay (p99, ms) of one process. */
async function eventLoopP99Ms(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = /^nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(text);
  return line ? Math.round(Number(line[1]) * 10_000) / 10 : undefined;
}

let pass = false;
try {
  const { requests, signer } = await mixedRequests(sandbox.gateways[0], duration, 'soak');
  const processes = sandbox.processes();
  const rssBefore = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, rssMiB(pid)]));
  const second = Object.fromEntries(Object.entries(processes).filter(([name]) => name.endsWith('#2')));
  const heapBefore = await heap.measure(second);
  // What the stores did meanwhile (issue #32): their CPU (when they run on this machine) and the operations they answered.
  const stores = await storeClients(process.env.MONGO_URL, process.env.REDIS_URL);
  const storePids = storeProcesses(process.env.MONGO_URL, process.env.REDIS_URL);
  const storesBefore = { cpu: storeCpu(storePids), mongo: await stores.mongoCommands(), redis: await stores.redisCommands() };
  const load = await runMixedLoad(sandbox.gateways, requests, { seconds: duration, connections });
  const storesAfter = { cpu: storeCpu(storePids), mongo: await stores.mongoCommands(), redis: await stores.redisCommands() };
  await stores.close();
  const perRequest = (value) => Math.round((value / load.requests) * 1000) / 1000;
  const storeCpuSeconds = difference(storesBefore.cpu, storesAfter.cpu);
  const storeWork = {
    cpuMsPerRequest: Object.keys(storeCpuSeconds).length ? perRequest(sum(storeCpuSeconds) * 1000) : undefined,
    cpuMsPerRequestByProcess: Object.fromEntries(Object.entries(storeCpuSeconds).map(([name, seconds]) => [name, perRequest(seconds * 1000)])),
    mongoOperationsPerRequest: perRequest(sum(difference(storesBefore.mongo, storesAfter.mongo))),
    redisOperationsPerRequest: perRequest(sum(difference(storesBefore.redis, storesAfter.redis))),
  };
  const rssAfter = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, rssMiB(pid)]));
  const heapAfter = await heap.measure(second);
  const eventLoop = {};
  for (const [variable, port] of Object.entries(metricsPorts))
    eventLoop[variable.replace(/_?METRICS_PORT$/, '').toLowerCase() || 'gateway'] = await eventLoopP99Ms(port);
  const unexpected = Object.entries(load.statuses).reduce((n, [status, count]) => n + (Number(status) >= 300 ? count : 0), 0) + load.errors + load.timeouts;
  const { check, checks } = checklist();
  check('zero unexpected statuses, errors or timeouts', unexpected === 0, { samples: load.samples, firstErrors: load.firstErrors });
  check('the HMAC signatures lasted the run (the mix stayed whole)', !signer.exhausted);
  const grownBeyond = Object.keys(second).filter((name) => heapAfter[name] - heapBefore[name] > cacheMiB(name) + LIVE_HEAP_WARMUP_MIB);
  check(`no process's live heap grew beyond its caches plus ${LIVE_HEAP_WARMUP_MIB} MiB`, grownBeyond.length === 0, grownBeyond);
  pass = checks.every((c) => c.ok);
  const report = {
    when: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version },
    duration,
    connections,
    replicas: 2,
    mix: requests.map((r) => `${r.method ?? 'GET'} ${r.path}`),
    ...load,
    failedAt: load.failedAt.slice(0, 20),
    unexpected,
    hmacSignaturesExhausted: signer.exhausted,
    rssMiB: Object.fromEntries(Object.keys(processes).map((name) => [name, { before: Math.round(rssBefore[name]), after: Math.round(rssAfter[name]) }])),
    liveHeapMiB: Object.fromEntries(Object.keys(second).map((name) => [name, { before: heapBefore[name], after: heapAfter[name] }])),
    rssOfChartLimit: Object.fromEntries(
      Object.keys(processes)
        .filter((name) => !name.includes('#'))
        .map((name) => [name, `${Math.round((rssAfter[name] / chartMemoryLimitMiB(name)) * 100)}% of ${chartMemoryLimitMiB(name)} MiB`]),
    ),
    eventLoopP99MsFirstReplica: eventLoop,
    storeWork,
    checks,
    pass,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/soak-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
} finally {
  await sandbox.stop();
  heap.close();
}
process.exit(pass ? 0 : 1);
