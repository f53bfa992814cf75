// Gateway CPU per request on the cached data page (user + system from /proc),
// for the build in a repository root (default: this one). CPU per request is
// steadier than requests per second on a shared 2-core machine, so this is
// how two builds are compared (e.g. before and after a change to the hot
// route): run it for each, alternating, and compare medians.
//
//   npm run build && node bench/gateway-cpu.mjs [ROOT]

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const { startSandbox } = await import(join(root, 'bench/lib.mjs'));
const autocannon = (await import(join(root, 'node_modules/autocannon/autocannon.js'))).default;
const cpu = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const sandbox = await startSandbox();
try {
  const post = (path, body, token) =>
    fetch(`${sandbox.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  const { token } = await post('/api/auth/register', { email: `cpu-${Date.now()}@example.org`, password: 'bench-password-1' });
  const { apiKey } = await post('/api/apps', { name: 'cpu' }, token);
  const pid = Number(/gateway=(\d+)/.exec(readFileSync(sandbox.logFile, 'utf8'))[1]);
  const url = `${sandbox.baseUrl}/playground/data/stocks/candles?page=1&page_size=50`;
  await autocannon({ url, headers: { 'x-api-key': apiKey }, connections: 16, duration: 2 });
  const results = [];
  for (let i = 0; i < 3; i++) {
    const before = cpu(pid);
    const r = await autocannon({ url, headers: { 'x-api-key': apiKey }, connections: 16, duration: 6 });
    results.push(((cpu(pid) - before) * 1e6) / r.requests.total);
  }
  console.log(JSON.stringify({ root, cpuMicrosPerRequest: results.map((x) => +x.toFixed(1)) }));
} finally {
  await sandbox.stop();
}
