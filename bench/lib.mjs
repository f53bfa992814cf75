// Shared pieces of the benchmarks: boot the real system, run autocannon, summarise.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * NODE_COMPILE_CACHE, when the caller set it (scripts/test.sh does), for the
 * Node.js processes a benchmark starts: they then read V8's code cache
 * instead of compiling every module again.
 */
export const compileCache = () => (process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {});

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The sandbox as `npm start` runs it, on free ports; resolves once ready.
 * The launcher picks its extra replicas' ports from the kernel's ephemeral
 * range, where another process (a test beside this one, an outgoing
 * connection) may take one before the replica binds it; the replica then
 * exits with EADDRINUSE and the start fails. Only that is tried again, with
 * fresh ports, as test/support/system.ts does.
 */
export async function startSandbox(extraEnv = {}, root = ROOT) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSandboxOnce(extraEnv, root);
    } catch (error) {
      const log = error.logFile ? readFileSync(error.logFile, 'utf8') : '';
      if (attempt >= 3 || !/EADDRINUSE/.test(log)) throw error;
    }
  }
}

/** `root`: the repository whose build runs (another checkout's, to measure two builds in one run). */
async function startSandboxOnce(extraEnv, root) {
  const ports = {};
  for (const name of ['PORT', 'IDENTITY_GRPC_PORT', 'OAUTH_GRPC_PORT', 'DATA_GRPC_PORT', 'PLAYGROUND_GRPC_PORT']) ports[name] = String(await freePort());
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...compileCache(), HOST: '127.0.0.1', ...ports, ...extraEnv };
  // Logs go to a file, as a container runtime collects them: a pipe read by
  // this (busy) process would block the services' synchronous log writes and
  // measure the benchmark instead of the sandbox.
  const logFile = join(mkdtempSync(join(tmpdir(), 'sandbox-bench-')), 'sandbox.log');
  const fd = openSync(logFile, 'a');
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [join(root, 'packages/launcher/dist/main.js')], { env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exited = false;
  child.once('exit', () => (exited = true));
  let out = '';
  while (!out.includes('Training Sandbox is ready at')) {
    if (exited) throw Object.assign(new Error(`launcher exited before ready; see ${logFile}`), { logFile });
    await new Promise((r) => setTimeout(r, 10));
    out = readFileSync(logFile, 'utf8');
  }
  const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
  /** The launcher's children by name (identity, oauth, data, playground, gateway), from its ready line. */
  const processes = () => Object.fromEntries([...out.match(/Training Sandbox is ready at .*/)[0].matchAll(/([\w#]+)=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
  return {
    logFile,
    env,
    baseUrl: `http://127.0.0.1:${ports.PORT}`,
    readyMs,
    processes,
    pids: () => Object.values(processes()),
    launcherPid: child.pid,
    /** Sends the launcher a signal (SIGHUP: a rolling restart). */
    signal: (name) => child.kill(name),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** Runs autocannon against one URL and returns the figures we quote. */
export async function load(url, { headers = {}, connections = 16, duration = 8 } = {}) {
  const result = await autocannon({ url, headers, connections, duration, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx and ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bytes: result.throughput.average };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds a process has used (user + system), from /proc. */
export const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
};

/** Resident memory of a process in MiB, from /proc. */
export const rssMiB = (pid) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
};

/**
 * Proportional memory of a process in MiB (Pss, /proc/PID/smaps_rollup): its
 * own pages, plus each page it shares divided by the processes sharing it.
 * Several Node.js processes share the node binary's pages (about 34 MiB,
 * read-only); RSS counts them in each, so a sum of RSS counts them five
 * times, a sum of PSS once: what the processes take from the machine together.
 */
export const pssMiB = (pid) => {
  const line = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Pss:'));
  return Number(line.split(/\s+/)[1]) / 1024;
};

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A numeric command-line option, `--name value`, or its default (every benchmark reads its rounds, duration and connections this way). */
/** `--help`: prints the script's own header comment (its `//` lines) and exits. */
export function exitWithHelpIfAsked(moduleUrl) {
  if (!process.argv.includes('--help')) return;
  const header = readFileSync(new URL(moduleUrl), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('//'));
  console.log(header.map((line) => line.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}

export const numberArg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

export const HMAC_PATH = '/playground/auth/hmac';
/** The server accepts x-timestamp within 300 s of its clock; 20 s stay as margin. */
export const HMAC_SKEW_SECONDS = 280;
/** LIMITS.appsPerOwnerMax in services/identity/src/domain/limits.ts. */
export const APPS_PER_USER = 100;

/**
 * One (app, timestamp) signature is accepted once, within ±300 s of server time.
 * Each app's timestamps walk up from 280 s ago, one per request, apps taken
 * round robin; an app whose next timestamp is 280 s ahead waits for the clock.
 * So n apps give 561·n signatures at once and n more every second. When every
 * app is used up, sign() notes it in `exhausted` and returns no headers (the
 * request is refused and the measurement throws): an exception inside
 * autocannon's setupRequest would kill this process and orphan the sandboxes.
 */
export function hmacSigner(apps) {
  const next = apps.map(() => 0);
  let turn = 0;
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const signer = { exhausted: false };
  signer.sign = () => {
    const now = nowSeconds();
    for (let tried = 0; tried < apps.length; tried++) {
      const i = turn++ % apps.length;
      const timestamp = Math.max(next[i], now - HMAC_SKEW_SECONDS);
      if (timestamp > now + HMAC_SKEW_SECONDS) continue;
      next[i] = timestamp + 1;
      const signature = createHmac('sha256', apps[i].apiKey).update(`${timestamp}.GET.${HMAC_PATH}`).digest('hex');
      return { 'x-app-id': apps[i].appId, 'x-timestamp': String(timestamp), 'x-signature': signature };
    }
    signer.exhausted = true;
    return {};
  };
  /** Signatures left now, across the apps. */
  signer.capacity = () => {
    const now = nowSeconds();
    return next.reduce((sum, n) => sum + Math.max(0, now + HMAC_SKEW_SECONDS - Math.max(n, now - HMAC_SKEW_SECONDS) + 1), 0);
  };
  return signer;
}

/** A JSON API call during setup; any non-2xx throws. */
export async function call(baseUrl, method, path, { body, token } = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** `count` apps (every pack scope, the default), owned by as many users as the per-user cap needs. */
export async function createApps(baseUrl, count, label = 'bench') {
  const apps = [];
  for (let user = 0; apps.length < count; user++) {
    const { token } = await call(baseUrl, 'POST', '/api/auth/register', {
      body: { email: `${label}-${user}-${Date.now()}@example.org`, password: 'bench-password-1' },
    });
    while (apps.length < count && apps.length < (user + 1) * APPS_PER_USER)
      apps.push(await call(baseUrl, 'POST', '/api/apps', { token, body: { name: `${label} ${apps.length}` } }));
  }
  if (!apps[0].scopes.includes('hr:read')) throw new Error(`apps are created without hr:read (scopes ${apps[0].scopes}); the token request asks for it`);
  return apps;
}

/**
 * Runs autocannon with one request (its setupRequest, if any, called per
 * request) at `connections` for `seconds`, and returns rps, latency and each
 * given process's CPU per request (µs; `total` their sum). Any non-2xx or
 * error throws, with the first such answer or error: a benchmark of refusals
 * measures nothing.
 */
export async function measureLoad(url, request, processes, { seconds, connections }) {
  const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]));
  let firstProblem;
  const onResponse = (status, body) => {
    if ((status < 200 || status >= 300) && !firstProblem) firstProblem = `${status} ${body.slice(0, 500)}`;
  };
  const run = autocannon({ url, connections, duration: seconds, pipelining: 1, requests: [{ method: 'GET', ...request, onResponse }] });
  run.on('reqError', (error) => (firstProblem ??= error.message));
  const result = await run;
  const label = `${request.method ?? 'GET'} ${url}${request.path}`;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx and ${result.errors} errors; first: ${firstProblem}`);
  const cpu = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, ((cpuSeconds(pid) - before[name]) * 1e6) / result.requests.total]));
  cpu.total = Object.values(cpu).reduce((a, b) => a + b, 0);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuMicrosPerRequest: cpu };
}

/** Medians of several measureLoad results: requests/s, p50 and p99, and each process's CPU a request (µs, rounded). */
export const summariseLoads = (list) => ({
  rps: median(list.map((r) => r.rps)),
  p50: median(list.map((r) => r.p50)),
  p99: median(list.map((r) => r.p99)),
  cpuMicrosPerRequest: Object.fromEntries(
    Object.keys(list[0].cpuMicrosPerRequest).map((name) => [name, Math.round(median(list.map((r) => r.cpuMicrosPerRequest[name])))]),
  ),
});

/**
 * Adds one round's results ({ route: { target: result } }) to `runs` ({
 * route: { target: [result, ...] } }), and prints the round's requests/s on
 * stderr.
 */
export function recordRound(runs, results, round, rounds, load) {
  for (const [route, byTarget] of Object.entries(results))
    for (const [target, result] of Object.entries(byTarget)) ((runs[route] ??= {})[target] ??= []).push(result);
  const line = Object.entries(results).map(
    ([route, byTarget]) =>
      `${route} ${Object.entries(byTarget)
        .map(([target, r]) => `${target} ${r.rps.toFixed(0)}`)
        .join(' ')}`,
  );
  console.error(`round ${round}/${rounds} (rps, load ${load.toFixed(2)}): ${line.join('; ')}`);
}

/** `runs`' medians (summariseLoads), route by route and target by target. */
export const mediansOfRuns = (runs) =>
  Object.fromEntries(
    Object.entries(runs).map(([route, byTarget]) => [
      route,
      Object.fromEntries(Object.entries(byTarget).map(([target, list]) => [target, summariseLoads(list)])),
    ]),
  );

/** One 200 answer, exactly as autocannon receives it: its body and (lower-cased) headers; anything else throws. */
export async function captureAnswer(url, request) {
  let answer;
  await autocannon({
    url,
    connections: 1,
    amount: 1,
    requests: [{ method: 'GET', ...request, onResponse: (status, body, _context, headers) => (answer ??= { status, body, headers }) }],
  });
  if (!answer || answer.status !== 200) throw new Error(`${request.method ?? 'GET'} ${request.path}: ${answer?.status} ${answer?.body}`);
  const headers = Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const body = Buffer.from(answer.body);
  if (Number(headers['content-length']) !== body.length)
    throw new Error(`${request.path}: captured ${body.length} bytes, content-length ${headers['content-length']}`);
  return { headers, body };
}
