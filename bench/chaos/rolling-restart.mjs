// Chaos scenario: a rolling restart of every process (the launcher's SIGHUP:
// each replica of each service, then each gateway, stopped with SIGTERM and
// started again, the next only once it serves) under the mixed load, sent
// through a front door that plays the Kubernetes Service in front of the
// gateways (bench/front-door.mjs). Rule: zero failed requests.
import { readFileSync } from 'node:fs';
import { startFrontDoor } from '../front-door.mjs';
import { mixedRequests, runMixedLoad, startReplicatedSandbox } from '../mixed-load.mjs';
import { checklist } from './checklist.mjs';

/** How long a stopping gateway keeps serving while the front door's probe (every 100 ms) sees it draining. */
const GATEWAY_SHUTDOWN_DELAY_MS = 1000;
/** Load before the restart begins, and the most the restart of ten processes may take. */
const LEAD_MS = 2000;
const RESTART_LIMIT_MS = 60_000;

export const title = 'a rolling restart of every process, one replica at a time';

export async function run({ connections }) {
  const sandbox = await startReplicatedSandbox('chaos-rolling', { SHUTDOWN_DELAY_MS: String(GATEWAY_SHUTDOWN_DELAY_MS) });
  const frontDoor = await startFrontDoor(sandbox.gateways);
  const { check, checks } = checklist();
  try {
    const { requests } = await mixedRequests(sandbox.gateways[0], 90, 'rolling');
    const log = () => readFileSync(sandbox.logFile, 'utf8');
    const before = log().length;
    const restarted = () => log().slice(before);
    const pidsBefore = sandbox.processes();
    let signalledAt;
    let doneAt;
    // Loads in slices until the restart is done (bounded by RESTART_LIMIT_MS), then one more slice of steady load.
    const slices = [];
    const sliceSeconds = 5;
    const started = Date.now();
    while (Date.now() - started < LEAD_MS + RESTART_LIMIT_MS) {
      slices.push(
        await runMixedLoad([frontDoor.url], requests, {
          seconds: sliceSeconds,
          connections,
          during: () => {
            const at = Date.now() - started;
            if (signalledAt === undefined && at >= LEAD_MS) {
              sandbox.signal('SIGHUP');
              signalledAt = at;
            }
            if (doneAt === undefined && /rolling restart done/.test(restarted())) doneAt = at;
          },
        }),
      );
      if (doneAt !== undefined) break;
    }
    slices.push(await runMixedLoad([frontDoor.url], requests, { seconds: sliceSeconds, connections }));
    const output = restarted();
    const steps = [...output.matchAll(/rolling restart: ([\w#]+)=(\d+) serves again \((\d+) ms\)/g)].map((m) => ({
      process: m[1],
      pid: Number(m[2]),
      ms: Number(m[3]),
    }));
    const statuses = {};
    for (const slice of slices) for (const [status, count] of Object.entries(slice.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    const failed = Object.entries(statuses).reduce((n, [status, count]) => n + (Number(status) >= 300 ? count : 0), 0);
    const errors = slices.reduce((n, s) => n + s.errors + s.timeouts, 0);
    check('the restart finished under load', doneAt !== undefined, {
      signalledAtMs: signalledAt,
      doneAtMs: doneAt,
      tail: doneAt === undefined ? output.slice(-1500) : undefined,
    });
    check(
      'every process was replaced by a new one',
      steps.length === Object.keys(pidsBefore).length && steps.every((s) => pidsBefore[s.process] !== s.pid),
      steps,
    );
    check('zero failed requests', failed === 0, slices.flatMap((s) => Object.entries(s.samples)).slice(0, 6));
    check('no error, reset or timeout', errors === 0, slices.flatMap((s) => s.firstErrors).slice(0, 5));
    return {
      restartMs: doneAt !== undefined ? doneAt - signalledAt : undefined,
      perProcessMs: Object.fromEntries(steps.map((s) => [s.process, s.ms])),
      requests: slices.reduce((n, s) => n + s.requests, 0),
      rps: Math.round(slices.reduce((n, s) => n + s.rps, 0) / slices.length),
      latencyMs: { p50: Math.max(...slices.map((s) => s.latencyMs.p50)), p99: Math.max(...slices.map((s) => s.latencyMs.p99)) },
      statuses,
      failed,
      checks,
    };
  } finally {
    await frontDoor.close();
    await sandbox.stop();
  }
}
