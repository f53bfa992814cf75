// How long `npm start` (the launcher) takes from spawn to "ready" (every
// service SERVING and GET /health/ready 200), and how much memory its
// processes hold once ready. Targets: ready under 5 s (the median of several
// starts); the five services under 300 MiB together (issue #36), counted as
// PSS (bench/lib.mjs pssMiB: the node binary's shared pages once, not five
// times). RSS is reported beside it, and the launcher on its own line.
//
//   npm run build && node bench/startup.mjs [--runs 5] [--settle 5]
//
// --settle: seconds to wait after ready before measuring memory (at rest).
import { median, numberArg, pssMiB, rssMiB, startSandbox } from './lib.mjs';

const runs = numberArg('runs', 5);
const settleSeconds = numberArg('settle', 5);
const MEMORY_TARGET_MIB = 300;

const times = [];
let memory;
for (let run = 0; run < runs; run++) {
  const sandbox = await startSandbox();
  times.push(sandbox.readyMs);
  if (run === runs - 1) {
    await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
    const processes = sandbox.processes();
    const round = (value) => Math.round(value);
    const total = (measure) => round(Object.values(processes).reduce((sum, pid) => sum + measure(pid), 0));
    memory = {
      settleSeconds,
      processes: Object.keys(processes).length,
      pssTotalMiB: total(pssMiB),
      rssTotalMiB: total(rssMiB),
      perProcessMiB: Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, { pss: round(pssMiB(pid)), rss: round(rssMiB(pid)) }])),
      launcherMiB: { pss: round(pssMiB(sandbox.launcherPid)), rss: round(rssMiB(sandbox.launcherPid)) },
    };
  }
  await sandbox.stop();
}
const report = {
  runs,
  readyMs: times.map(Math.round),
  medianReadyMs: Math.round(median(times)),
  target: '< 5000 ms',
  memory,
  memoryTarget: `five services < ${MEMORY_TARGET_MIB} MiB PSS`,
};
report.pass = { ready: report.medianReadyMs < 5000, memory: memory.pssTotalMiB < MEMORY_TARGET_MIB };
console.log(JSON.stringify(report, null, 2));
process.exitCode = report.pass.ready && report.pass.memory ? 0 : 1;
