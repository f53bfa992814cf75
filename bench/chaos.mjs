// The chaos scenarios of issue #21 that need no store outage or proxy (the
// rest are still to come: rolling restarts, Redis and MongoDB stopped,
// latency through toxiproxy). Against two replicas of every process with real
// stores (bench/mixed-load.mjs), under the mixed load over both gateways:
//
// - kill -9 one replica of each service in turn (identity, oauth, data,
//   playground, 3 s apart): only the calls that replica had in flight fail,
//   each with 503 (never a hang, a 500 or a reset), within a second of its
//   death; the survivors take the load at once.
//
//   npm run chaos                     (scripts/with-stores.sh provisions the stores)
//   MONGO_URL=... REDIS_URL=... node bench/chaos.mjs [--connections 50]
//
// Prints each scenario's figures; exit code 1 when a rule fails.
import { cpus } from 'node:os';
import { numberArg } from './lib.mjs';
import { mixedRequests, runMixedLoad, startReplicatedSandbox } from './mixed-load.mjs';

const connections = numberArg('connections', 50);
const KILL_EVERY_MS = 3000;
/** How long after a death its calls in flight may still be failing (the gateway learns of it from the broken connection). */
const FAILING_WINDOW_MS = 1000;

const sandbox = await startReplicatedSandbox('chaos');
const checks = [];
const check = (rule, ok, detail) => checks.push({ rule, ok, ...(detail === undefined ? {} : { detail }) });

try {
  const victims = ['identity#2', 'oauth#2', 'data#2', 'playground#2'];
  const seconds = ((victims.length + 1) * KILL_EVERY_MS) / 1000;
  const { requests } = await mixedRequests(sandbox.gateways[0], seconds, 'chaos');
  const processes = sandbox.processes();
  const killedAt = {};
  const load = await runMixedLoad(sandbox.gateways, requests, {
    seconds,
    connections,
    during: (ms) => {
      const due = victims[Math.floor(ms / KILL_EVERY_MS) - 1];
      if (due && killedAt[due] === undefined) {
        process.kill(processes[due], 'SIGKILL');
        killedAt[due] = ms;
      }
    },
  });
  const deaths = Object.values(killedAt);
  const failures = load.failedAt;
  check('every replica was killed under load', Object.keys(killedAt).length === victims.length, killedAt);
  check('no error, reset or timeout', load.errors === 0 && load.timeouts === 0, { errors: load.errors, timeouts: load.timeouts, first: load.firstErrors });
  check('every failure is a 503', failures.every((f) => f.status === 503), load.samples);
  check(
    `every failure came within ${FAILING_WINDOW_MS} ms of a death`,
    failures.every((f) => deaths.some((at) => f.ms >= at && f.ms <= at + FAILING_WINDOW_MS)),
    failures.filter((f) => !deaths.some((at) => f.ms >= at && f.ms <= at + FAILING_WINDOW_MS)).slice(0, 10),
  );
  const report = {
    when: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version },
    scenario: 'kill -9 one replica of each service in turn',
    connections,
    killedAtMs: killedAt,
    requests: load.requests,
    rps: load.rps,
    latencyMs: load.latencyMs,
    statuses: load.statuses,
    failed: failures.length,
    checks,
    pass: checks.every((c) => c.ok),
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await sandbox.stop();
}
process.exit(checks.every((c) => c.ok) ? 0 : 1);
