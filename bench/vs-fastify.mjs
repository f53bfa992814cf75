// Issue #36 asks, before more of the gateway's own pipeline is written, for
// fastify to be measured against it in the same run. Three servers answer
// the same bytes, one process each, on the same cores as the load:
//
//   bare     node:http answering the captured bytes (bench/bare-routes.mjs)
//   fastify  fastify answering them (bench/fastify-server.mjs): what its
//            pipeline costs over node:http
//   sandbox  the embedded default's gateway (and, for echo, the playground
//            behind it), every check on
//
// Routes: `basic`, GET /playground/auth/basic with an app's right App ID and
// App Secret, which the gateway answers alone (its credential verdict
// cached): the gateway's own pipeline against fastify's; and `echo`, GET
// /playground/echo?x=1, which the gateway passes to the playground service.
// Rounds interleaved (each round's order reversed from the last), medians
// quoted, with each process's CPU a request (user + system, from /proc).
//
//   npm run build && node bench/vs-fastify.mjs [--rounds 3] [--duration 5] [--connections 16]
//
// Prints, and writes to bench/results/vs-fastify-<time>.json: requests/s,
// p99 and CPU per request per target, and the ratios of each to bare.
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, captureAnswer, createApps, exitWithHelpIfAsked, freePort, measureLoad, mediansOfRuns, numberArg, recordRound, startSandbox } from './lib.mjs';

exitWithHelpIfAsked(import.meta.url);
const rounds = numberArg('rounds', 3);
const duration = numberArg('duration', 5);
const connections = numberArg('connections', 16);
/** An unrecorded first round: the JIT of every process needs it. */
const WARMUP_SECONDS = 2;

/** The bytes and content type of the sandbox's answer to `request`, for the baselines to answer. */
async function capture(url, request) {
  const { headers, body } = await captureAnswer(url, request);
  return { headers: { 'content-type': headers['content-type'] }, bodyBase64: body.toString('base64') };
}

/** Starts one of the baseline servers (a module answering `routes`, told its port over IPC). */
async function startBaseline(module, routes) {
  const port = await freePort();
  const child = fork(join(ROOT, module), { stdio: 'inherit' });
  child.send({ port, routes });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${module} exited (${code}) before listening`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, processes: { [module.includes('fastify') ? 'fastify' : 'bare']: child.pid } };
}

const sandbox = await startSandbox();
let bare;
let fastify;
try {
  const [app] = await createApps(sandbox.baseUrl, 1, 'vs-fastify');
  const requests = {
    basic: { path: '/playground/auth/basic', headers: { authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}` } },
    echo: { path: '/playground/echo?x=1' },
  };
  const routes = {};
  for (const request of Object.values(requests)) routes[request.path.split('?')[0]] = await capture(sandbox.baseUrl, request);
  bare = await startBaseline('bench/bare-routes.mjs', routes);
  fastify = await startBaseline('bench/fastify-server.mjs', routes);
  // Only the gateway and the playground serve these routes; the other services idle.
  const { gateway, playground } = sandbox.processes();
  const targets = { bare, fastify, sandbox: { url: sandbox.baseUrl, processes: { gateway, playground } } };

  const runRound = async (seconds, round) => {
    const results = {};
    for (const [route, request] of Object.entries(requests)) {
      results[route] = {};
      const order = Object.entries(targets);
      if (round % 2 === 0) order.reverse();
      for (const [name, target] of order) results[route][name] = await measureLoad(target.url, request, target.processes, { seconds, connections });
    }
    return results;
  };
  await runRound(WARMUP_SECONDS, 1);
  const runs = Object.fromEntries(Object.keys(requests).map((route) => [route, {}]));
  const loads = [];
  for (let round = 1; round <= rounds; round++) {
    const results = await runRound(duration, round);
    loads.push(loadavg()[0]);
    recordRound(runs, results, round, rounds, loads.at(-1));
  }

  const medians = mediansOfRuns(runs);
  const ratio = (a, b) => Number((a / b).toFixed(2));
  const ratios = Object.fromEntries(
    Object.entries(medians).map(([route, m]) => [
      route,
      {
        fastifyVsBare: ratio(m.fastify.rps, m.bare.rps),
        sandboxVsBare: ratio(m.sandbox.rps, m.bare.rps),
        sandboxVsFastify: ratio(m.sandbox.rps, m.fastify.rps),
        gatewayCpuVsBare: ratio(m.sandbox.cpuMicrosPerRequest.gateway, m.bare.cpuMicrosPerRequest.bare),
        fastifyCpuVsBare: ratio(m.fastify.cpuMicrosPerRequest.fastify, m.bare.cpuMicrosPerRequest.bare),
      },
    ]),
  );
  const report = {
    when: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version },
    fastify: (await import('fastify/package.json', { with: { type: 'json' } })).default.version,
    rounds,
    duration,
    connections,
    loadAverageAfterRounds: loads,
    routes: Object.fromEntries(Object.entries(requests).map(([route, request]) => [route, `GET ${request.path}`])),
    medians,
    ratios,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, `bench/results/vs-fastify-${report.when.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  console.log(JSON.stringify(report, null, 2));
} finally {
  bare?.child.kill();
  fastify?.child.kill();
  await sandbox.stop();
}
