// Benchmark for the cheap-hop issue: four routes through the gateway, with
// the gateway's calls to the services carried over long-lived gRPC streams
// (GRPC_TRANSPORT=stream, the default) and as plain unary gRPC calls
// (GRPC_TRANSPORT=unary, the "before"), beside one bare node:http process
// answering each route's bytes (the baseline), in one run, rounds
// interleaved, medians quoted, with the CPU each process spent per request
// (user + system, from /proc).
//
//   npm run build && node bench/hop.mjs [--rounds 3] [--duration 5] [--connections 16]
//
// Routes: GET /playground/echo?x=1; the uncached data page (page 1 of
// stocks/candles, DATA_PAGE_CACHE_MB=0, x-api-key); POST /oauth/token (client
// credentials, Basic); GET /playground/auth/hmac (a fresh signature per
// request). Targets, per route: stream >= 0.25x bare requests/s, and p99 with
// stream no worse than with unary. The token route's target is bounded by
// RSA-2048 signing, which no transport removes: a "signing" baseline (bare
// node:http signing an RS256 token of the same claims per request) shows by
// how much. Likewise the data page's by rendering it (JSON of 50 rows and its
// ETag): a "rendering" baseline (bare node:http calling the data service's
// renderPage per request) shows that ceiling. A third sandbox runs the stream
// transport without mutual TLS between the processes (GRPC_TLS=off, the
// "plaintext" target): the stream sandbox over plaintext is what mutual TLS
// costs per request (target: at least 0.9, issue #31).
//
// The mutual TLS ratio is also taken per round (mutual TLS and plaintext are
// measured back to back, their order swapped every round) and its median
// reported as `<route>MtlsVsPlaintextPaired`: on a shared machine whose load
// comes and goes, a pair measured within seconds of each other is steadier
// than two medians taken apart. Beside it, `<route>MtlsVsPlaintextCpu`: the
// median per round of plaintext's CPU per request (every process of the
// sandbox, from /proc) over mutual TLS's, the requests/s ratio a machine
// whose cores the sandbox has to itself would show; on a machine shared with
// other work it moves far less than requests/s do. To measure only that, faster:
//
//   node bench/hop.mjs --routes echo,data,token --targets stream,plaintext --rounds 9
//
// --before DIR adds a sandbox like the stream one (mutual TLS) run from
// another checkout's build (e.g. one at the commit before a change, built),
// as the target `before`, so a change is judged within one run, against the
// same plaintext: `<route>BeforeVsPlaintext` beside `<route>MtlsVsPlaintext`,
// each also paired and by CPU.
//
// --tracing adds two sandboxes like the stream one with OpenTelemetry tracing
// on (docs/decisions.md, "Tracing"), exporting to a null OTLP endpoint in
// this process that accepts every batch: `traced0` samples no trace
// (parentbased_traceidratio, ratio 0: what an on-but-unsampled deployment
// pays) and `traced1` samples every one (ratio 1). The stream sandbox is
// tracing off. Reported as `<route>Traced0VsOff` and `<route>Traced1VsOff`
// (requests/s) and `...Cpu` (CPU per request, off over traced). For example:
//
//   node bench/hop.mjs --routes echo,token --targets stream --tracing --rounds 3
//
// --cpu-prof DIR writes a V8 CPU profile of every process of the stream and
// plaintext sandboxes (NODE_OPTIONS=--cpu-prof) to DIR/<sandbox>/ at the end.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  APPS_PER_USER,
  HMAC_PATH,
  HMAC_SKEW_SECONDS,
  ROOT,
  captureAnswer,
  createApps,
  exitWithHelpIfAsked,
  freePort,
  hmacSigner,
  measureLoad,
  median,
  mediansOfRuns,
  numberArg,
  recordRound,
  rssMiB,
  startSandbox,
} from './lib.mjs';

exitWithHelpIfAsked(import.meta.url);
const rounds = numberArg('rounds', 3);
const duration = numberArg('duration', 5);
const connections = numberArg('connections', 16);
/** A comma-separated command-line option, `--name a,b`, or undefined (all). */
const listArg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1].split(',') : undefined;
};
const onlyRoutes = listArg('routes');
const onlyTargets = listArg('targets');
const wants = (target) => !onlyTargets || onlyTargets.includes(target);
const stringArg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const profileDir = stringArg('cpu-prof');
const beforeRoot = stringArg('before');
const tracing = process.argv.includes('--tracing');
/** An unrecorded first round: the JIT of every process needs it. */
const WARMUP_SECONDS = 2;
const TARGET_VS_BARE = 0.25;
/** Mutual TLS between the processes may cost at most a tenth of the requests per second. */
const TARGET_MTLS_VS_PLAINTEXT = 0.9;

/** More HMAC requests per second than either transport reaches here: sizes the apps, so signatures never run out. */
const HMAC_MAX_RPS = 15_000;
const TOKEN_BODY = 'grant_type=client_credentials&scope=hr%3Aread';
const SIGNING_PATH = '/signing/oauth/token';
const RENDERING_PATH = '/rendering/data-page';

/** The four routes' requests in one sandbox, as autocannon request objects (path, method, headers, body, setupRequest). */
async function sandboxRoutes(sandbox, appCount) {
  const apps = await createApps(sandbox.baseUrl, appCount, 'hop');
  const [app] = apps;
  const signer = hmacSigner(apps);
  const routes = {
    echo: { path: '/playground/echo?x=1' },
    data: { path: '/playground/data/stocks/candles?page=1&page_size=50', headers: { 'x-api-key': app.apiKey } },
    token: {
      path: '/oauth/token',
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: TOKEN_BODY,
    },
    hmac: { path: HMAC_PATH, setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...signer.sign() } }) },
  };
  return { sandbox, routes, signer };
}

/** One side's load (bench/lib.mjs measureLoad) at this run's connections. */
const measure = (url, request, processes, seconds = duration) => measureLoad(url, request, processes, { seconds, connections });

/**
 * The bare baseline process, answering each route's captured bytes and
 * content type (like bench/bare-echo.cjs: the gateway's other headers, e.g.
 * its security headers, are part of the work it is measured on), and the
 * signing route.
 */
async function startBare(answers) {
  const port = await freePort();
  const child = fork(join(ROOT, 'bench/bare-routes.mjs'), { stdio: 'inherit' });
  const headersOf = (answer) => ({ 'content-type': answer.headers['content-type'] });
  const routes = Object.fromEntries(
    Object.values(answers).map(({ path, answer }) => [path, { headers: headersOf(answer), bodyBase64: answer.body.toString('base64') }]),
  );
  // The signing and rendering baselines exist only when their route is measured (--routes).
  let rendering;
  if (answers.data) {
    const [pack, entity] = answers.data.path.split('/').slice(-2);
    const page = JSON.parse(answers.data.answer.body.toString());
    rendering = {
      path: RENDERING_PATH,
      headers: headersOf(answers.data.answer),
      // What the gateway sends data on a miss: the same page, for an app holding the pack's scope.
      request: { pack, entity, rawQuery: answers.data.query, grantedScopes: [`${pack}:read`], rootUrl: page.nextLink.split(`/${pack}/`)[0] },
    };
  }
  const token = answers.token?.answer;
  const signing = token && { path: SIGNING_PATH, headers: headersOf(token), response: JSON.parse(token.body.toString()) };
  child.send({ port, routes, rendering, signing });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bench/bare-routes.mjs exited (${code}) before listening`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

const memoryMiB = (pids) => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, Math.round(rssMiB(pid))]));

// Enough apps that the HMAC route never runs out of signatures at HMAC_MAX_RPS, ignoring the ones the clock frees (whole users' worth).
const hmacSeconds = WARMUP_SECONDS + rounds * duration;
const appsPerSandbox = Math.ceil((hmacSeconds * HMAC_MAX_RPS) / (2 * HMAC_SKEW_SECONDS + 1) / APPS_PER_USER) * APPS_PER_USER;

const profiling = (name) => (profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${join(profileDir, name)}` } : {});
const sandboxEnv = (transport, tls = 'on', name) => ({ DATA_PAGE_CACHE_MB: '0', GRPC_TRANSPORT: transport, GRPC_TLS: tls, ...profiling(name) });
/** Accepts every OTLP export and answers an empty ExportTraceServiceResponse, so tracing's cost is the sandbox's, not a backend's. */
async function startNullOtlp() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/x-protobuf', 'Content-Length': '0' }).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}
const tracedEnv = (ratio, otlpUrl) => ({
  ...sandboxEnv('stream', 'on', `traced${ratio}`),
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: String(ratio),
});
const stream = await startSandbox(sandboxEnv('stream', 'on', 'stream'));
let unary;
let nullOtlp;
let traced0;
let traced1;
let plaintext;
let before;
let bare;
try {
  // A sandbox no measured target uses is not started: its idle processes would only add noise.
  unary = wants('unary') ? await startSandbox(sandboxEnv('unary')) : undefined;
  plaintext = wants('plaintext') ? await startSandbox(sandboxEnv('stream', 'off', 'plaintext')) : undefined;
  before = beforeRoot ? await startSandbox(sandboxEnv('stream', 'on', 'before'), beforeRoot) : undefined;
  if (tracing) {
    nullOtlp = await startNullOtlp();
    traced0 = await startSandbox(tracedEnv(0, nullOtlp.url));
    traced1 = await startSandbox(tracedEnv(1, nullOtlp.url));
  }
  const [streamSystem, unarySystem, plaintextSystem, beforeSystem, traced0System, traced1System] = await Promise.all(
    // Only the HMAC route needs many apps (their signatures); one does for the others.
    [stream, unary, plaintext, before, traced0, traced1].map(
      (sandbox) => sandbox && sandboxRoutes(sandbox, !onlyRoutes || onlyRoutes.includes('hmac') ? appsPerSandbox : 1),
    ),
  );
  const systems = {
    stream: streamSystem,
    unary: unarySystem,
    plaintext: plaintextSystem,
    before: beforeSystem,
    traced0: traced0System,
    traced1: traced1System,
  };
  const routeNames = Object.keys(systems.stream.routes).filter((name) => !onlyRoutes || onlyRoutes.includes(name));

  // The baseline answers what the gateway answered (with the stream transport) to the same request.
  const answers = {};
  for (const name of routeNames) {
    const request = systems.stream.routes[name];
    answers[name] = { path: request.path.split('?')[0], query: request.path.split('?')[1] ?? '', answer: await captureAnswer(stream.baseUrl, request) };
  }
  const needsBare = ['bare', 'signing', 'rendering'].some(wants);
  bare = needsBare ? await startBare(answers) : undefined;
  const bareProcess = { bare: bare?.child.pid };

  // Every sandbox process is reported for every route: which services a route calls is the code's business, not the benchmark's.
  const measureSandbox = async ({ sandbox, routes, signer }, name, seconds) => {
    const addApps = 'add apps (HMAC_MAX_RPS in bench/hop.mjs)';
    if (name === 'hmac' && signer.capacity() < seconds * HMAC_MAX_RPS)
      throw new Error(`only ${signer.capacity()} HMAC signatures left for up to ${seconds * HMAC_MAX_RPS} requests: ${addApps}`);
    try {
      return await measure(sandbox.baseUrl, routes[name], sandbox.processes(), seconds);
    } catch (error) {
      throw signer.exhausted ? new Error(`every app used every HMAC timestamp of the window: ${addApps}`, { cause: error }) : error;
    }
  };
  /** Every target of a route: bare (the same request; for HMAC the headers of one signed request, unchecked), stream, unary, and signing for the token. */
  const targetsOf = (name) => {
    const { setupRequest, ...request } = systems.stream.routes[name];
    const bareRequest = setupRequest ? { ...request, headers: { ...request.headers, ...systems.stream.signer.sign() } } : request;
    const all = {
      bare: (seconds) => measure(bare.url, bareRequest, bareProcess, seconds),
      stream: (seconds) => measureSandbox(systems.stream, name, seconds),
      unary: (seconds) => measureSandbox(systems.unary, name, seconds),
      plaintext: (seconds) => measureSandbox(systems.plaintext, name, seconds),
      ...(before ? { before: (seconds) => measureSandbox(systems.before, name, seconds) } : {}),
      ...(tracing
        ? { traced0: (seconds) => measureSandbox(systems.traced0, name, seconds), traced1: (seconds) => measureSandbox(systems.traced1, name, seconds) }
        : {}),
      ...(name === 'token' ? { signing: (seconds) => measure(bare.url, { ...request, path: SIGNING_PATH }, bareProcess, seconds) } : {}),
      ...(name === 'data' ? { rendering: (seconds) => measure(bare.url, { ...request, path: RENDERING_PATH }, bareProcess, seconds) } : {}),
    };
    return Object.fromEntries(Object.entries(all).filter(([target]) => ['before', 'traced0', 'traced1'].includes(target) || wants(target)));
  };
  const plan = Object.fromEntries(routeNames.map((name) => [name, targetsOf(name)]));

  /** Every target of every route; an even round takes each route's targets in the reverse order, so neither of a pair always goes first. */
  const runRound = async (seconds, round) => {
    const results = {};
    for (const [name, targets] of Object.entries(plan)) {
      results[name] = {};
      const order = Object.entries(targets);
      if (round % 2 === 0) order.reverse();
      for (const [target, run] of order) results[name][target] = await run(seconds);
    }
    return results;
  };

  await runRound(WARMUP_SECONDS, 1);
  const runs = Object.fromEntries(routeNames.map((name) => [name, {}]));
  /** Per round: mutual TLS over plaintext requests/s, and the load average (1 min) when the round ended. */
  const paired = Object.fromEntries(routeNames.map((name) => [name, []]));
  const pairedCpu = Object.fromEntries(routeNames.map((name) => [name, []]));
  const pairedBefore = Object.fromEntries(routeNames.map((name) => [name, { rps: [], cpu: [] }]));
  const loads = [];
  for (let round = 1; round <= rounds; round++) {
    const results = await runRound(duration, round);
    loads.push(loadavg()[0]);
    for (const [name, byTarget] of Object.entries(results)) {
      if (!byTarget.stream || !byTarget.plaintext) continue;
      paired[name].push(byTarget.stream.rps / byTarget.plaintext.rps);
      pairedCpu[name].push(byTarget.plaintext.cpuMicrosPerRequest.total / byTarget.stream.cpuMicrosPerRequest.total);
      if (!byTarget.before) continue;
      pairedBefore[name].rps.push(byTarget.before.rps / byTarget.plaintext.rps);
      pairedBefore[name].cpu.push(byTarget.plaintext.cpuMicrosPerRequest.total / byTarget.before.cpuMicrosPerRequest.total);
    }
    recordRound(runs, results, round, rounds, loads.at(-1));
  }

  const medians = mediansOfRuns(runs);
  const ratios = {};
  const targetsSet = {};
  const pass = {};
  // With --targets, a ratio (and its pass) is given only when both of its sides were measured.
  for (const [name, m] of Object.entries(medians)) {
    if (m.bare && m.unary) {
      ratios[`${name}StreamVsBare`] = m.stream.rps / m.bare.rps;
      ratios[`${name}UnaryVsBare`] = m.unary.rps / m.bare.rps;
      ratios[`${name}StreamVsUnary`] = m.stream.rps / m.unary.rps;
      ratios[`${name}P99StreamVsUnary`] = m.stream.p99 / m.unary.p99;
      targetsSet[`${name}StreamVsBare`] = `>= ${TARGET_VS_BARE}`;
      targetsSet[`${name}P99`] = 'stream <= unary';
      pass[name] = m.stream.rps / m.bare.rps >= TARGET_VS_BARE && m.stream.p99 <= m.unary.p99;
    }
    if (m.plaintext) {
      ratios[`${name}MtlsVsPlaintext`] = m.stream.rps / m.plaintext.rps;
      ratios[`${name}MtlsVsPlaintextPaired`] = median(paired[name]);
      ratios[`${name}MtlsVsPlaintextCpu`] = median(pairedCpu[name]);
      if (m.before) {
        ratios[`${name}BeforeVsPlaintext`] = m.before.rps / m.plaintext.rps;
        ratios[`${name}BeforeVsPlaintextPaired`] = median(pairedBefore[name].rps);
        ratios[`${name}BeforeVsPlaintextCpu`] = median(pairedBefore[name].cpu);
      }
      targetsSet[`${name}MtlsVsPlaintext`] = `>= ${TARGET_MTLS_VS_PLAINTEXT}`;
      pass[`${name}Mtls`] = m.stream.rps / m.plaintext.rps >= TARGET_MTLS_VS_PLAINTEXT;
    }
  }
  // Tracing's cost: on but sampling nothing, and on sampling everything, against off (the stream sandbox).
  for (const [name, m] of Object.entries(medians)) {
    for (const traced of ['traced0', 'traced1']) {
      if (!m[traced] || !m.stream) continue;
      const label = `${name}${traced[0].toUpperCase()}${traced.slice(1)}VsOff`;
      ratios[label] = m[traced].rps / m.stream.rps;
      ratios[`${label}Cpu`] = m.stream.cpuMicrosPerRequest.total / m[traced].cpuMicrosPerRequest.total;
    }
  }
  // Information only: how far RSA signing alone keeps the token route from the bare baseline.
  if (medians.token?.signing && medians.token.bare) {
    ratios.tokenSigningVsBare = medians.token.signing.rps / medians.token.bare.rps;
    ratios.tokenStreamVsSigning = medians.token.stream.rps / medians.token.signing.rps;
  }
  // ...and rendering alone keeps the data page.
  if (medians.data?.rendering && medians.data.bare) {
    ratios.dataRenderingVsBare = medians.data.rendering.rps / medians.data.bare.rps;
    ratios.dataStreamVsRendering = medians.data.stream.rps / medians.data.rendering.rps;
  }
  pass.overall = Object.values(pass).every(Boolean);

  const report = {
    when: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version },
    rounds,
    duration,
    connections,
    routesMeasured: routeNames,
    targetsMeasured: onlyTargets ?? 'all',
    ...(beforeRoot ? { before: beforeRoot } : {}),
    loadAverageAfterRounds: loads.map((load) => Number(load.toFixed(2))),
    mtlsVsPlaintextPerRound: Object.fromEntries(Object.entries(paired).map(([name, list]) => [name, list.map((r) => Number(r.toFixed(3)))])),
    mtlsVsPlaintextCpuPerRound: Object.fromEntries(Object.entries(pairedCpu).map(([name, list]) => [name, list.map((r) => Number(r.toFixed(3)))])),
    warmupSeconds: WARMUP_SECONDS,
    appsPerSandbox,
    routes: Object.fromEntries(routeNames.map((name) => [name, `${systems.stream.routes[name].method ?? 'GET'} ${systems.stream.routes[name].path}`])),
    bodyBytes: Object.fromEntries(routeNames.map((name) => [name, answers[name].answer.body.length])),
    medians,
    ratios,
    targets: targetsSet,
    pass,
    memoryMiBAtEnd: {
      ...(bare ? { bare: memoryMiB(bareProcess) } : {}),
      stream: memoryMiB(stream.processes()),
      ...(unary ? { unary: memoryMiB(unary.processes()) } : {}),
      ...(plaintext ? { plaintext: memoryMiB(plaintext.processes()) } : {}),
      ...(before ? { before: memoryMiB(before.processes()) } : {}),
      ...(traced0 ? { traced0: memoryMiB(traced0.processes()), traced1: memoryMiB(traced1.processes()) } : {}),
    },
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/hop-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
} finally {
  bare?.child.kill();
  await Promise.all([stream.stop(), unary?.stop(), plaintext?.stop(), before?.stop(), traced0?.stop(), traced1?.stop()]);
  nullOtlp?.server.close();
}
