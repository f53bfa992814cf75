// Benchmark for issue #36's first goal: the embedded sandbox (`npm start`,
// its defaults) against go-httpbin v2.26.0, the public practice service a
// load tester compares it with, on the four routes both have. go-httpbin is
// built from its Go module into .tools (scripts/lib/go-httpbin.sh). Both run
// on this machine, on free loopback ports, their logs written to files (as a
// container runtime collects them), each with its default logging.
//
//   npm run build && npm run bench:peers [-- --rounds 3 --duration 5 --connections 16]
//
// Pairs (sandbox vs go-httpbin):
//   echo     POST /playground/echo (a JSON body)  vs POST /anything (the same body)
//   status   GET /playground/response?status=200  vs GET /status/200
//   headers  GET /playground/headers              vs GET /headers
//   basic    GET /playground/auth/basic (Basic with the App ID and App Secret
//            of an app the bench registers)       vs GET /basic-auth/u/p (Basic u:p)
//
// autocannon at 16 connections, one unrecorded warm-up round (2 s a side),
// then interleaved rounds (each pair's two sides back to back, the order
// swapped every round) of 5 s a side; medians quoted. Per side, the CPU each
// server process spent per request (user + system, from /proc): every
// process of the sandbox by name (gateway, playground, oauth, identity,
// data), go-httpbin's one. The goal of the issue (sandbox at least 0.5x
// go-httpbin's requests/s, p99 at most 2x) is printed beside the ratios; it
// is information, the run does not fail on it. Any non-2xx answer or error
// fails the run. A JSON report goes to stdout and bench/results/.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, createApps, exitWithHelpIfAsked, freePort, measureLoad, median, numberArg, rssMiB, startSandbox } from './lib.mjs';

exitWithHelpIfAsked(import.meta.url);
const rounds = numberArg('rounds', 3);
const duration = numberArg('duration', 5);
const connections = numberArg('connections', 16);
/** An unrecorded first round: the JIT of every Node.js process needs it (and go-httpbin gets the same). */
const WARMUP_SECONDS = 2;
/** Issue #36's goal, quoted beside the ratios. */
const GOAL_RPS_RATIO = 0.5;
const GOAL_P99_RATIO = 2;

/** What a learner's load test would post: a small JSON object with a few types in it. */
const ECHO_BODY = JSON.stringify({ name: 'load test', count: 3, ratio: 0.5, active: true, tags: ['a', 'b', 'c'], nested: { id: 42, note: null } });
const basic = (user, password) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Builds go-httpbin if .tools lacks the pinned one (a Go build of about a minute the first time) and returns its path. */
function ensureGoHttpbin() {
  const out = execFileSync('bash', ['-c', 'source scripts/lib/go-httpbin.sh && ensure_go_httpbin && echo "$GO_HTTPBIN_BIN"'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  return out.trim().split('\n').at(-1);
}

/** go-httpbin on a free loopback port, its log in a file; resolves once it answers. */
async function startGoHttpbin(bin) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const logFile = join(mkdtempSync(join(tmpdir(), 'go-httpbin-bench-')), 'go-httpbin.log');
    const fd = openSync(logFile, 'a');
    const child = spawn(bin, ['-host', '127.0.0.1', '-port', String(port)], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    let exited = false;
    child.once('exit', () => (exited = true));
    const url = `http://127.0.0.1:${port}`;
    const stop = () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    for (const deadline = Date.now() + 10_000; !exited && Date.now() < deadline;) {
      const ok = await fetch(`${url}/status/200`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ok) return { url, pid: child.pid, logFile, stop };
      await new Promise((r) => setTimeout(r, 20));
    }
    await stop();
    // As with the sandbox's replicas (bench/lib.mjs): the free port may be taken before go-httpbin binds it; only that is tried again.
    if (!exited || attempt >= 3) throw new Error(`go-httpbin did not answer on ${url}; see ${logFile}`);
  }
}

/** One side's load (bench/lib.mjs measureLoad) at this run's connections. */
const measure = (url, request, processes, seconds) => measureLoad(url, request, processes, { seconds, connections });

/** One answer, checked to be a 200, for its size in the report: the two sides' answers are not byte-identical (their JSON shapes differ). */
async function answerBytes(url, { method = 'GET', path, headers = {}, body }) {
  const res = await fetch(`${url}${path}`, { method, headers, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${url}${path}: ${res.status} ${text.slice(0, 500)}`);
  return Buffer.byteLength(text);
}

const summarise = (list) => ({
  rps: Math.round(median(list.map((r) => r.rps))),
  p50: median(list.map((r) => r.p50)),
  p99: median(list.map((r) => r.p99)),
  cpuMicrosPerRequest: Object.fromEntries(
    Object.keys(list[0].cpuMicrosPerRequest).map((name) => [name, Math.round(median(list.map((r) => r.cpuMicrosPerRequest[name])))]),
  ),
});

const bin = ensureGoHttpbin();
const loadAtStart = loadavg().map((load) => Number(load.toFixed(2)));
let sandbox;
let httpbin;
// A benchmark stopped with Ctrl-C (or killed by a CI's timeout) takes its servers with it.
const stopAll = () => Promise.all([sandbox?.stop(), httpbin?.stop()]);
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
])
  process.once(signal, () => {
    stopAll().finally(() => process.exit(code));
  });
try {
  // One after the other: were they started together, a failure of one would leave the other running, unknown to the cleanup.
  sandbox = await startSandbox();
  httpbin = await startGoHttpbin(bin);
  const [app] = await createApps(sandbox.baseUrl, 1, 'httpbin');
  const json = { 'content-type': 'application/json' };
  const pairs = {
    echo: {
      sandbox: { method: 'POST', path: '/playground/echo', headers: json, body: ECHO_BODY },
      goHttpbin: { method: 'POST', path: '/anything', headers: json, body: ECHO_BODY },
    },
    status: { sandbox: { path: '/playground/response?status=200' }, goHttpbin: { path: '/status/200' } },
    headers: { sandbox: { path: '/playground/headers' }, goHttpbin: { path: '/headers' } },
    basic: {
      sandbox: { path: '/playground/auth/basic', headers: { authorization: basic(app.appId, app.appSecret) } },
      goHttpbin: { path: '/basic-auth/u/p', headers: { authorization: basic('u', 'p') } },
    },
  };
  const sides = {
    // Every sandbox process is reported on every pair: which services a route calls is the code's business, not the benchmark's.
    sandbox: { url: sandbox.baseUrl, processes: () => sandbox.processes() },
    goHttpbin: { url: httpbin.url, processes: () => ({ goHttpbin: httpbin.pid }) },
  };
  const bodyBytes = {};
  for (const [pair, bySide] of Object.entries(pairs)) {
    bodyBytes[pair] = {};
    for (const [side, request] of Object.entries(bySide)) bodyBytes[pair][side] = await answerBytes(sides[side].url, request);
  }

  /** Every pair, its two sides back to back; odd rounds start with the sandbox, even ones with go-httpbin. */
  const runRound = async (seconds, round) => {
    const results = {};
    for (const [pair, bySide] of Object.entries(pairs)) {
      results[pair] = {};
      const order = Object.keys(bySide);
      if (round % 2 === 0) order.reverse();
      for (const side of order) results[pair][side] = await measure(sides[side].url, bySide[side], sides[side].processes(), seconds);
    }
    return results;
  };

  await runRound(WARMUP_SECONDS, 1);
  const runs = Object.fromEntries(Object.keys(pairs).map((pair) => [pair, { sandbox: [], goHttpbin: [] }]));
  const loads = [];
  for (let round = 1; round <= rounds; round++) {
    const results = await runRound(duration, round);
    loads.push(Number(loadavg()[0].toFixed(2)));
    for (const [pair, bySide] of Object.entries(results)) for (const [side, result] of Object.entries(bySide)) runs[pair][side].push(result);
    const line = Object.entries(results).map(([pair, r]) => `${pair} ${r.sandbox.rps.toFixed(0)} vs ${r.goHttpbin.rps.toFixed(0)}`);
    console.error(`round ${round}/${rounds} (rps, load ${loads.at(-1)}): ${line.join('; ')}`);
  }

  const medians = Object.fromEntries(
    Object.entries(runs).map(([pair, bySide]) => [pair, { sandbox: summarise(bySide.sandbox), goHttpbin: summarise(bySide.goHttpbin) }]),
  );
  const ratios = {};
  const goalMet = {};
  for (const [pair, m] of Object.entries(medians)) {
    const rps = m.sandbox.rps / m.goHttpbin.rps;
    const p99 = m.sandbox.p99 / m.goHttpbin.p99;
    const cpu = m.sandbox.cpuMicrosPerRequest.total / m.goHttpbin.cpuMicrosPerRequest.total;
    ratios[pair] = { rps: Number(rps.toFixed(3)), p99: Number(p99.toFixed(2)), cpuPerRequest: Number(cpu.toFixed(2)) };
    goalMet[pair] = rps >= GOAL_RPS_RATIO && p99 <= GOAL_P99_RATIO;
  }
  goalMet.overall = Object.values(goalMet).every(Boolean);

  const report = {
    when: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version },
    // go-httpbin prints its version to stderr.
    goHttpbin: spawnSync(bin, ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0],
    rounds,
    duration,
    connections,
    warmupSeconds: WARMUP_SECONDS,
    loadAverageAtStart: loadAtStart,
    loadAverageAfterRounds: loads,
    routes: Object.fromEntries(
      Object.entries(pairs).map(([pair, bySide]) => [
        pair,
        Object.fromEntries(Object.entries(bySide).map(([side, r]) => [side, `${r.method ?? 'GET'} ${r.path}`])),
      ]),
    ),
    requestBody: ECHO_BODY,
    bodyBytes,
    medians,
    /** sandbox / go-httpbin: requests/s (higher is better for the sandbox), p99 and CPU per request (lower is). */
    ratios,
    goal: `sandbox >= ${GOAL_RPS_RATIO}x go-httpbin's requests/s, p99 <= ${GOAL_P99_RATIO}x`,
    goalMet,
    memoryMiBAtEnd: {
      sandbox: Object.fromEntries(Object.entries(sandbox.processes()).map(([name, pid]) => [name, Math.round(rssMiB(pid))])),
      goHttpbin: Math.round(rssMiB(httpbin.pid)),
    },
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/vs-go-httpbin-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
} finally {
  await stopAll();
}
