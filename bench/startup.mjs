// How long `npm start` (the launcher) takes from spawn to "ready" (every
// service SERVING and GET /health/ready 200), and how much memory each process
// holds once ready. Target: under 5 s. Quotes the median of several starts.
//
//   npm run build && node bench/startup.mjs [--runs 5]
import { median, rssMiB, startSandbox } from './lib.mjs';

const i = process.argv.indexOf('--runs');
const runs = i > 0 ? Number(process.argv[i + 1]) : 5;

const times = [];
let memory;
for (let run = 0; run < runs; run++) {
  const sandbox = await startSandbox();
  times.push(sandbox.readyMs);
  if (run === runs - 1) {
    const pids = sandbox.pids();
    memory = {
      processes: pids.length,
      totalMiB: Math.round(pids.reduce((sum, pid) => sum + rssMiB(pid), 0)),
      perProcessMiB: pids.map((p) => Math.round(rssMiB(p))),
    };
  }
  await sandbox.stop();
}
const report = { runs, readyMs: times.map(Math.round), medianReadyMs: Math.round(median(times)), target: '< 5000 ms', memory };
console.log(JSON.stringify(report, null, 2));
process.exitCode = report.medianReadyMs < 5000 ? 0 : 1;
