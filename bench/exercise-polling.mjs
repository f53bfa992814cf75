// What a classroom of open Exercises screens costs (issue #37): each tab asks
// GET /api/exercises every 3 s while visible, the next poll planned only after
// the last one is answered, as the portal's usePolling does. N learners, each
// with an app (and, with --done, one exercise done, so the listing also reads
// their apps for doneWithApp), poll for --seconds; the tabs open at different
// moments over the first interval. Reports polls/s, p50/p99 latency, and each
// process's CPU over the polling window as a percentage of one core, beside
// the same processes' CPU over an idle window of the same system before it
// (timers, health checks), and the CPU per poll after the idle share.
//
//   npm run build && MONGO_URL=... REDIS_URL=... node bench/exercise-polling.mjs [--tabs 100] [--seconds 60] [--done]
//
// Without MONGO_URL and REDIS_URL it measures the embedded default (memory
// stores), which is not what a class runs on: use scripts/with-stores.sh, as
// `npm run soak` does.
import { randomBytes } from 'node:crypto';
import { call, cpuSeconds, exitWithHelpIfAsked, median, numberArg, startSandbox } from './lib.mjs';

exitWithHelpIfAsked(import.meta.url);
const tabs = numberArg('tabs', 100);
const seconds = numberArg('seconds', 60);
const idleSeconds = numberArg('idle', 20);
const withDone = process.argv.includes('--done');
const INTERVAL_MS = 3000;
const key = () => randomBytes(32).toString('base64url');
const stores = process.env.MONGO_URL ? { MONGO_URL: process.env.MONGO_URL, REDIS_URL: process.env.REDIS_URL } : {};

const sandbox = await startSandbox({ ...stores, CREDENTIAL_ENCRYPTION_KEY: key(), SESSION_SIGNING_KEY: key(), PAGE_TOKEN_KEY: key() });
try {
  const sessions = [];
  for (let i = 0; i < tabs; i++) {
    const email = `poll-${Date.now().toString(36)}-${i}@example.org`;
    const { token } = await call(sandbox.baseUrl, 'POST', '/api/auth/register', { body: { email, password: 'bench-password-1' } });
    const app = await call(sandbox.baseUrl, 'POST', '/api/apps', { body: { name: `tab ${i}` }, token });
    if (withDone) {
      const basic = `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
      await fetch(`${sandbox.baseUrl}/playground/auth/basic`, { headers: { Authorization: basic } }).then((r) => r.arrayBuffer());
    }
    sessions.push(token);
  }
  const processes = sandbox.processes();
  const cpuNow = () => Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const percentSince = (before, window) => Object.fromEntries(Object.entries(cpuNow()).map(([name, now]) => [name, ((now - before[name]) / window) * 100]));
  // Let the registrations' work (password hashing, the first judging) finish before the idle window.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idleStart = cpuNow();
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  const idle = percentSince(idleStart, idleSeconds);

  const latencies = [];
  let failures = 0;
  const pollStart = cpuNow();
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    sessions.map(async (token, i) => {
      await new Promise((resolve) => setTimeout(resolve, (i * INTERVAL_MS) / tabs));
      while (Date.now() < end) {
        const started = performance.now();
        const res = await fetch(`${sandbox.baseUrl}/api/exercises`, { headers: { Authorization: `Bearer ${token}` } });
        const body = await res.json();
        if (res.status !== 200 || (withDone && body.exercises.find((e) => e.id === 'auth-basic')?.status !== 'done')) failures++;
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
      }
    }),
  );
  const busy = percentSince(pollStart, seconds);
  latencies.sort((a, b) => a - b);
  const round = (value, digits = 1) => Number(value.toFixed(digits));
  const perSecond = latencies.length / seconds;
  const report = {
    tabs,
    seconds,
    withDone,
    stores: process.env.MONGO_URL ? 'mongodb+redis' : 'memory',
    polls: latencies.length,
    pollsPerSecond: round(perSecond),
    failures,
    p50Ms: round(median(latencies)),
    p99Ms: round(latencies[Math.floor(0.99 * (latencies.length - 1))]),
    cpuPercentOfOneCore: Object.fromEntries(Object.entries(busy).map(([name, value]) => [name, round(value)])),
    idlePercentOfOneCore: Object.fromEntries(Object.entries(idle).map(([name, value]) => [name, round(value)])),
    cpuMicrosPerPoll: Object.fromEntries(Object.entries(busy).map(([name, value]) => [name, Math.round(((value - idle[name]) / 100 / perSecond) * 1e6)])),
  };
  console.log(JSON.stringify(report, null, 2));
  process.exitCode = failures === 0 ? 0 : 1;
} finally {
  await sandbox.stop();
}
