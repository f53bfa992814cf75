// The chaos suite of issue #21: each scenario (bench/chaos/*.mjs) starts two
// replicas of every process with real stores (bench/mixed-load.mjs), puts the
// mixed load on both gateways, does its damage, and checks its rules.
//
//   npm run chaos                                   (every scenario; scripts/with-stores.sh provisions the stores)
//   npm run chaos -- --only kill-replicas           (one of them)
//   MONGO_URL=... REDIS_URL=... node bench/chaos.mjs [--connections 50]
//
// Prints one JSON report (each scenario's figures and checks), saved under
// bench/results/; exit code 1 when a rule fails.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ROOT, numberArg } from './lib.mjs';

/** Every scenario, in the order they run. */
const SCENARIOS = ['kill-replicas', 'rolling-restart', 'store-outage', 'slow-service'];

const connections = numberArg('connections', 50);
const onlyAt = process.argv.indexOf('--only');
const chosen = onlyAt > 0 ? process.argv[onlyAt + 1].split(',') : SCENARIOS;
const unknown = chosen.filter((name) => !SCENARIOS.includes(name));
if (unknown.length > 0) {
  console.error(`chaos: no scenario ${unknown.join(', ')} (there are: ${SCENARIOS.join(', ')})`);
  process.exit(2);
}

const report = { when: new Date().toISOString(), machine: { cores: cpus().length, node: process.version }, connections, scenarios: {} };
for (const name of chosen) {
  const scenario = await import(`./chaos/${name}.mjs`);
  const started = Date.now();
  console.error(`chaos: ${name}: ${scenario.title}`);
  try {
    const result = await scenario.run({ connections });
    report.scenarios[name] = {
      title: scenario.title,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      ...result,
      pass: result.checks.every((c) => c.ok),
    };
  } catch (error) {
    report.scenarios[name] = { title: scenario.title, error: error.stack, checks: [], pass: false };
  }
  console.error(`chaos: ${name}: ${report.scenarios[name].pass ? 'pass' : 'FAIL'}`);
}
report.pass = Object.values(report.scenarios).every((s) => s.pass);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, `bench/results/chaos-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
console.log(JSON.stringify(report, null, 2));
process.exit(report.pass ? 0 : 1);
