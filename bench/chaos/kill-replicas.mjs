// Chaos scenario: kill -9 one replica of each service in turn (identity,
// oauth, data, playground, 3 s apart) under the mixed load over both
// gateways. Rule: only the calls that replica had in flight fail, each with
// 503 (never a hang, a 500 or a reset), within a second of its death; the
// survivors take the load at once.
import { checklist } from './checklist.mjs';
import { mixedRequests, runMixedLoad, startReplicatedSandbox } from '../mixed-load.mjs';

const KILL_EVERY_MS = 3000;
/** How long after a death its calls in flight may still be failing (the gateway learns of it from the broken connection). */
const FAILING_WINDOW_MS = 1000;

export const title = 'kill -9 one replica of each service in turn';

export async function run({ connections }) {
  const sandbox = await startReplicatedSandbox('chaos-kill');
  const { check, checks } = checklist();
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
    const nearDeath = (f) => deaths.some((at) => f.ms >= at && f.ms <= at + FAILING_WINDOW_MS);
    check('every replica was killed under load', Object.keys(killedAt).length === victims.length, killedAt);
    check('no error, reset or timeout', load.errors === 0 && load.timeouts === 0, { errors: load.errors, timeouts: load.timeouts, first: load.firstErrors });
    check(
      'every failure is a 503',
      failures.every((f) => f.status === 503),
      load.samples,
    );
    check(`every failure came within ${FAILING_WINDOW_MS} ms of a death`, failures.every(nearDeath), failures.filter((f) => !nearDeath(f)).slice(0, 10));
    return {
      killedAtMs: killedAt,
      requests: load.requests,
      rps: load.rps,
      latencyMs: load.latencyMs,
      statuses: load.statuses,
      failed: failures.length,
      checks,
    };
  } finally {
    await sandbox.stop();
  }
}
