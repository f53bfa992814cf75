// Benchmark for the HTTP-practice issue: GET /playground/echo?x=1 through the
// gateway (and the playground service behind it) beside a bare node:http
// server doing the same echo, in one run, rounds interleaved, medians quoted,
// with the CPU each process spent per request (user + system, from /proc).
// No target: the gRPC hop's cost is the cheap-hop issue's subject; this is its
// starting point.
//
//   npm run build && node bench/echo.mjs [--rounds 3] [--duration 8] [--connections 16]
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ROOT, cpuSeconds, freePort, numberArg, startSandbox, summariseLoads } from './lib.mjs';

const rounds = numberArg('rounds', 3);
const duration = numberArg('duration', 8);
const connections = numberArg('connections', 16);
const sandbox = await startSandbox();
try {
  const port = await freePort();
  const bare = fork(join(ROOT, 'bench/bare-echo.cjs'), { env: { PORT: String(port) } });
  await new Promise((resolve) => bare.once('message', resolve));
  const pids = sandbox.processes();

  const measure = async (url, processes) => {
    const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]));
    const result = await autocannon({ url, connections, duration, pipelining: 1 });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx and ${result.errors} errors`);
    const requests = result.requests.total;
    const cpuMicros = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, ((cpuSeconds(pid) - before[name]) * 1e6) / requests]));
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuMicrosPerRequest: cpuMicros };
  };

  const runs = { bare: [], gateway: [] };
  for (let round = 1; round <= rounds; round++) {
    runs.bare.push(await measure(`http://127.0.0.1:${port}/playground/echo?x=1`, { bare: bare.pid }));
    runs.gateway.push(await measure(`${sandbox.baseUrl}/playground/echo?x=1`, { gateway: pids.gateway, playground: pids.playground }));
    console.error(`round ${round}/${rounds}: bare ${runs.bare.at(-1).rps.toFixed(0)}, gateway ${runs.gateway.at(-1).rps.toFixed(0)} rps`);
  }
  bare.kill();
  const medians = { bare: summariseLoads(runs.bare), gateway: summariseLoads(runs.gateway) };
  const report = {
    when: new Date().toISOString(),
    machine: { cores: (await import('node:os')).cpus().length, node: process.version },
    rounds,
    duration,
    connections,
    medians,
    ratios: { gatewayVsBare: medians.gateway.rps / medians.bare.rps },
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/echo-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
} finally {
  await sandbox.stop();
}
