// The fair-share limiter's cost on the hot route (issue 22: at most 5%): the
// cached data page through the gateway with the limiter off, on in memory,
// and on in Redis (when REDIS_URL is set), in interleaved rounds, medians
// quoted. "On" means both token buckets (per app and per address) at a limit
// high enough that nothing is refused: every request spends from both and
// its answer carries the RateLimit fields, and in Redis mode each gateway
// leases tokens in chunks (burst/10) rather than asking Redis per request.
// Besides requests/s it quotes the gateway's CPU per request (user + system,
// from /proc), which is steadier on a shared 2-core machine.
//
//   npm run build && [REDIS_URL=redis://...] node bench/rate-limit.mjs [--rounds 5] [--duration 8] [--connections 16]
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ROOT, cpuSeconds, load, median, numberArg, startSandbox } from './lib.mjs';

const rounds = numberArg('rounds', 5);
const duration = numberArg('duration', 8);
const connections = numberArg('connections', 16);

/** Far above what one machine can send, so nothing is refused and only the bookkeeping is measured. */
const HIGH = {
  RATE_LIMIT_APP_PER_SECOND: '1000000',
  RATE_LIMIT_APP_BURST: '2000000',
  RATE_LIMIT_ADDRESS_PER_SECOND: '1000000',
  RATE_LIMIT_ADDRESS_BURST: '2000000',
};
const variants = { off: {}, memory: HIGH, ...(process.env.REDIS_URL ? { redis: { ...HIGH, REDIS_URL: process.env.REDIS_URL } } : {}) };

const sandboxes = {};
try {
  for (const [name, env] of Object.entries(variants)) sandboxes[name] = await startSandbox(env);
  const targets = {};
  for (const [name, sandbox] of Object.entries(sandboxes)) {
    const register = await fetch(`${sandbox.baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: `bench-${name}-${Date.now()}@example.org`, password: 'bench-password-1' }),
    }).then((r) => r.json());
    const app = await fetch(`${sandbox.baseUrl}/api/apps`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${register.token}` },
      body: JSON.stringify({ name: 'bench' }),
    }).then((r) => r.json());
    const url = `${sandbox.baseUrl}/playground/data/hr/employees?page=1&page_size=50`;
    const headers = { 'x-api-key': app.apiKey };
    const first = await fetch(url, { headers });
    if (first.status !== 200) throw new Error(`${name}: page 1 answered ${first.status}`);
    const limited = first.headers.get('ratelimit');
    if ((name === 'off') !== (limited === null)) throw new Error(`${name}: RateLimit field ${limited === null ? 'missing' : `present (${limited})`}`);
    targets[name] = { url, headers, fields: limited, gateway: sandbox.processes().gateway };
  }

  const runs = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  const names = Object.keys(variants);
  for (let round = 1; round <= rounds; round++) {
    // Each round starts with another variant, so that none always runs first (or last) on a warming machine.
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const before = cpuSeconds(targets[name].gateway);
      const run = await load(targets[name].url, { headers: targets[name].headers, duration, connections });
      run.cpuMicros = ((cpuSeconds(targets[name].gateway) - before) * 1e6) / (run.rps * duration);
      runs[name].push(run);
    }
    console.error(
      `round ${round}/${rounds}: ${names.map((name) => `${name} ${runs[name].at(-1).rps.toFixed(0)}/s ${runs[name].at(-1).cpuMicros.toFixed(1)} µs`).join(', ')}`,
    );
  }

  const medians = Object.fromEntries(
    Object.entries(runs).map(([name, list]) => [
      name,
      {
        rps: median(list.map((r) => r.rps)),
        gatewayCpuMicrosPerRequest: median(list.map((r) => r.cpuMicros)),
        p50: median(list.map((r) => r.p50)),
        p99: median(list.map((r) => r.p99)),
        rounds: list.map((r) => Math.round(r.rps)),
        cpuRounds: list.map((r) => +r.cpuMicros.toFixed(1)),
      },
    ]),
  );
  // Cost per request is 1/rps: the limiter's cost is how much longer a request takes with it on.
  const cost = Object.fromEntries(names.filter((n) => n !== 'off').map((name) => [name, medians.off.rps / medians[name].rps - 1]));
  // Rounds run one after another while the machine's speed drifts (a shared 2-core VM: ±20% between rounds of
  // one variant), so each round's variants are also compared with each other: the median of those ratios.
  const pairedCost = Object.fromEntries(
    names.filter((n) => n !== 'off').map((name) => [name, median(runs.off.map((off, i) => off.rps / runs[name][i].rps)) - 1]),
  );
  // The same, by the gateway's CPU per request.
  const cpuCost = Object.fromEntries(
    names.filter((n) => n !== 'off').map((name) => [name, medians[name].gatewayCpuMicrosPerRequest / medians.off.gatewayCpuMicrosPerRequest - 1]),
  );
  const report = {
    when: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version },
    route: 'GET /playground/data/hr/employees?page=1&page_size=50 (x-api-key, page cache on)',
    limits: HIGH,
    rateLimitFields: Object.fromEntries(names.map((name) => [name, targets[name].fields])),
    rounds,
    duration,
    connections,
    medians,
    ratios: Object.fromEntries(names.filter((n) => n !== 'off').map((name) => [`${name}VsOff`, medians[name].rps / medians.off.rps])),
    cost,
    pairedCost,
    cpuCost,
    target: 'cost <= 0.05 (by requests/s; cpuCost by the gateway CPU per request)',
    pass: Object.values(cost).every((c) => c <= 0.05),
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/rate-limit-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
  process.exitCode = report.pass ? 0 : 1;
} finally {
  await Promise.all(Object.values(sandboxes).map((sandbox) => sandbox.stop()));
}
