// Chaos scenario (issue #21): a slow service. Shopify's toxiproxy sits
// between the gateways and both playground replicas, and a latency toxic
// longer than any deadline of the playground's routes is added for a few
// seconds, under the mixed load and a stream of timed requests to the
// playground's routes. Rules: (a) those routes answer 504 upstream_timeout,
// each within its deadline and a margin; (b) the routes that do not touch the
// playground keep answering 2xx, each of them (sent on their own, twice a
// second) while the toxic holds; (c) each gateway's playground calls in flight
// (its sandbox_grpc_client_calls_in_flight gauge, scraped every 500 ms) stay
// under a bound derived from the connections and the probes, are back at 0
// within a deadline and a margin of the load's end, and every call that
// missed its deadline was one 504 at a client; (d) everything answers 2xx
// again within 2 s of the toxic's removal; (e) no error, reset or timeout at
// a client.
//
// Why the playground: none of its answers is cached (a slowed data service
// would hide behind the gateway's page cache), nothing else calls it, and
// its routes take the gateway's GRPC_DEADLINE_MS (echo, headers) or a
// deadline of their own (response?delay=d: d + 5 s), so both kinds are seen.
//
// How the gateways reach the playground only through toxiproxy: the launcher
// passes PLAYGROUND_GRPC_ADDR, when set, to every caller instead of its own
// list, so it names two proxies here. Replica 1 listens on the port given
// (PLAYGROUND_GRPC_PORT) and its proxy is made before the start; the launcher
// picks replica 2's port itself, so its proxy is made once the replica's
// "serving" log line names it. Until then the gateways find nothing on that
// proxy's port and retry (within 1 s); the warm-up waits until each gateway's
// echoes reach both replicas.
//
// toxiproxy is scripts/lib/toxiproxy.sh's build (TOXIPROXY_BIN, or built now).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, freePort } from '../lib.mjs';
import { mixedRequests, runMixedLoad, startReplicatedSandbox } from '../mixed-load.mjs';
import { checklist } from './checklist.mjs';

/**
 * The gateway's GRPC_DEADLINE_MS, at its default, set here so that the rules'
 * figures do not move with the environment. Not shorter: it is every call's
 * deadline, and at 2 s identity's sign-ups (password hashing, FerretDB) time
 * out on a busy 2-core machine before the load even starts.
 */
const DEADLINE_MS = 5000;
/** DELAY_MARGIN_MS in services/gateway/src/routes/http-practice/http-practice-routes.ts: /playground/response?delay=d has a deadline of d plus this. */
const DELAY_MARGIN_MS = 5000;
/** Longer than every deadline of the routes sent (at most 5.1 s) and its margin, so that no answer can beat its deadline while the toxic is on. */
const LATENCY_MS = 8000;
const BEFORE_MS = 3000;
const SLOW_MS = 10_000;
const AFTER_MS = 4000;
/** The rules' margins. A 504 comes when the gateway's timer fires and its event loop gets to it: on two busy cores, well under this. */
const ON_TIME_MARGIN_MS = 750;
const RECOVERED_WITHIN_MS = 2000;
/**
 * Timed requests to the playground's routes beside the mixed load: one every
 * PROBE_EVERY_MS on each gateway whatever the answers (an open loop, so that
 * a gateway that did not keep its deadlines would see them pile up).
 */
const PROBE_EVERY_MS = 250;
const PROBE_ROUTES = ['/playground/echo?probe=1', '/playground/headers', '/playground/response?delay=100'];
/**
 * The mix's routes that do not call the playground, each sent once every
 * OTHERS_EVERY_MS (gateways in turn) whatever the load does. The mixed load's
 * connections each cycle through the mix, and spend the toxic waiting on its
 * playground routes in turn: whether one of them reaches, say, the token route
 * while the toxic holds is chance (none did in one CI run), so "each of them
 * answered while it held" is judged on these.
 */
const OTHERS_EVERY_MS = 500;
/** A probe not answered by its deadline plus this counts as a client timeout. */
const PROBE_TIMEOUT_EXTRA_MS = 10_000;
const METRICS_EVERY_MS = 500;
const DRAIN_EVERY_MS = 100;
const WARM_UP_LIMIT_MS = 20_000;
const TOXIPROXY_START_LIMIT_MS = 10_000;
const LOG_LINE_LIMIT_MS = 5000;
const DRAIN_LIMIT_MS = 15_000;
const PROXIES = ['playground-1', 'playground-2'];

export const title = 'the playground slowed past every deadline by toxiproxy for 10 s';

export async function run({ connections }) {
  // Checked before toxiproxy starts: startReplicatedSandbox exits the process without them, which would leave it running.
  if (!process.env.MONGO_URL || !process.env.REDIS_URL) throw new Error('slow-service needs MONGO_URL and REDIS_URL (npm run chaos provisions both)');
  const toxiproxy = await startToxiproxy(toxiproxyBinary());
  const { check, checks } = checklist();
  let sandbox;
  try {
    const [replicaOnePort, listenOne, listenTwo, metricsPort, playgroundMetricsPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    await toxiproxy.createProxy(PROXIES[0], listenOne, replicaOnePort);
    sandbox = await startReplicatedSandbox('chaos-slow', {
      GRPC_DEADLINE_MS: String(DEADLINE_MS),
      PLAYGROUND_GRPC_PORT: String(replicaOnePort),
      PLAYGROUND_GRPC_ADDR: `ipv4:127.0.0.1:${listenOne},127.0.0.1:${listenTwo}`,
      METRICS_PORT: String(metricsPort),
      PLAYGROUND_METRICS_PORT: String(playgroundMetricsPort),
    });
    const servingPorts = await untilLogged(sandbox.logFile, (r) => r.service === 'playground' && r.msg === 'serving', 2);
    await toxiproxy.createProxy(
      PROXIES[1],
      listenTwo,
      otherReplicaPort(
        servingPorts.map((r) => r.port),
        replicaOnePort,
      ),
    );
    const metricsUrls = (await untilLogged(sandbox.logFile, (r) => r.service === 'gateway' && r.msg === 'metrics listening', sandbox.gateways.length)).map(
      (r) => r.url,
    );
    const replicaMetricsUrls = (await untilLogged(sandbox.logFile, (r) => r.service === 'playground' && r.msg === 'metrics listening', 2)).map((r) => r.url);
    await untilEveryGatewayReachesEveryReplica(sandbox.gateways, replicaMetricsUrls);

    const seconds = (BEFORE_MS + SLOW_MS + AFTER_MS) / 1000;
    const { requests } = await mixedRequests(sandbox.gateways[0], seconds, 'chaos-slow');
    const before = await Promise.all(metricsUrls.map(gatewayFigures));
    const slow = {};
    const answers = [];
    const t0 = Date.now();
    const endAt = t0 + seconds * 1000;
    const probing = runProbes(sandbox.gateways, t0, endAt);
    const probingOthers = runOtherRoutes(sandbox.gateways, requests, t0, endAt);
    const sampling = sampleMetrics(metricsUrls, endAt);
    const load = await runMixedLoad(sandbox.gateways, requests, {
      seconds,
      connections,
      // Timed here, on the clock the toxic's times are read from.
      onAnswer: ({ status, path, body }) => answers.push({ status, path, at: Date.now(), body }),
      during: (ms) => toggleToxic(toxiproxy, slow, ms),
    });
    const drain = await untilDrained(metricsUrls, Date.now());
    const probes = await probing;
    const otherProbes = await probingOthers;
    const samples = await sampling;
    const after = await Promise.all(metricsUrls.map(gatewayFigures));
    const deadlineExceeded = after.map((a, g) => a.deadlineExceeded - before[g].deadlineExceeded);
    const bound = inFlightBound(connections, sandbox.gateways.length);

    judge(check, { slow, probes, otherProbes, answers, load, samples, drain, deadlineExceeded, bound });
    return figures({ t0, slow, probes, answers, load, samples, drain, deadlineExceeded, bound, checks });
  } finally {
    await sandbox?.stop();
    await toxiproxy.stop();
  }
}

// ------------------------------------------------------------- the timeline

/** Adds the latency toxic to both proxies at BEFORE_MS and removes it SLOW_MS later, noting when each was asked for and done. */
async function toggleToxic(toxiproxy, slow, ms) {
  if (slow.onAskedAt === undefined && ms >= BEFORE_MS) {
    slow.onAskedAt = Date.now();
    await Promise.all(PROXIES.map((proxy) => toxiproxy.addLatency(proxy, LATENCY_MS)));
    slow.onAt = Date.now();
  } else if (slow.onAt !== undefined && slow.offAskedAt === undefined && ms >= BEFORE_MS + SLOW_MS) {
    slow.offAskedAt = Date.now();
    await Promise.all(PROXIES.map((proxy) => toxiproxy.removeLatency(proxy)));
    slow.offAt = Date.now();
  }
}

/** The deadline the gateway gives a route's playground call, or undefined for a route that does not call the playground. */
function playgroundDeadline(path) {
  const [route, query = ''] = path.split('?');
  if (route === '/playground/echo' || route === '/playground/headers') return DEADLINE_MS;
  if (route === '/playground/response') return Math.min(Number(new URLSearchParams(query).get('delay') ?? 0), 10_000) + DELAY_MARGIN_MS;
  return undefined;
}

/** The route's path without its query, as reports group answers. */
const routeOf = (path) => path.split('?')[0];

/** A 504 in the project's error shape, for the playground (`requestId`, when known, is the one sent). */
function isUpstreamTimeout(status, body, requestId) {
  if (status !== 504) return false;
  try {
    const { error } = JSON.parse(body);
    return (
      error?.code === 'upstream_timeout' &&
      /playground/.test(error.message) &&
      (requestId ? error.requestId === requestId : typeof error.requestId === 'string' && error.requestId !== '')
    );
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------- rules

/**
 * The most playground calls one gateway may have in flight if it keeps its
 * deadlines: each of autocannon's connections to it has one request in
 * flight, and each playground route makes one call; the probes, one every
 * PROBE_EVERY_MS, each last at most their deadline and its margin. Nothing
 * else calls the playground (the readiness checks are not counted). (The
 * call-stream caps, 1024 waiting calls per lane in
 * packages/runtime/src/call-stream-client.ts and 512 running per stream at
 * the server, are the limit when clients are not so polite: far above this.)
 */
function inFlightBound(connections, gateways) {
  const longestProbe = Math.max(...PROBE_ROUTES.map(playgroundDeadline)) + ON_TIME_MARGIN_MS;
  const connectionsPerGateway = Math.ceil(connections / gateways);
  const probes = Math.ceil(longestProbe / PROBE_EVERY_MS) + 1;
  return { connectionsPerGateway, probes, calls: connectionsPerGateway + probes };
}

function judge(check, { slow, probes, otherProbes, answers, load, samples, drain, deadlineExceeded, bound }) {
  const toxicHeld = slow.onAt !== undefined && slow.offAt !== undefined;
  check('the toxic was added and removed under load', toxicHeld, slow);
  if (!toxicHeld) return;

  // (a) The playground's routes answer 504 in the error shape, on time.
  const slowed = probes.filter((p) => p.startedAt >= slow.onAt && p.startedAt + p.deadlineMs + ON_TIME_MARGIN_MS <= slow.offAskedAt);
  const slowedWrong = slowed.filter((p) => !isUpstreamTimeout(p.status, p.body, p.requestId));
  check('probes sent while the toxic held answered 504 upstream_timeout (error shape, their request id)', slowed.length > 0 && slowedWrong.length === 0, {
    slowed: slowed.length,
    wrong: slowedWrong.slice(0, 5).map(brief),
  });
  const late = probes.filter((p) => p.status !== 0 && p.ms > p.deadlineMs + ON_TIME_MARGIN_MS);
  check(`every probe answered within its deadline + ${ON_TIME_MARGIN_MS} ms`, late.length === 0, late.slice(0, 5).map(brief));
  const early = probes.filter((p) => p.status === 504 && p.ms < p.deadlineMs - 5);
  check('no 504 came before its deadline', early.length === 0, early.slice(0, 5).map(brief));
  // The mixed load's answers are not timed one by one (autocannon), so: every failure on those routes is
  // a 504 upstream_timeout, some came, and none of them answered 2xx once the toxic had held for its deadline.
  const mixedPlayground = answers.filter((a) => playgroundDeadline(a.path) !== undefined);
  const mixedTimeouts = mixedPlayground.filter((a) => isUpstreamTimeout(a.status, a.body));
  const mixedWrong = mixedPlayground.filter((a) => {
    const heldPastDeadline = a.at >= slow.onAt + playgroundDeadline(a.path) + ON_TIME_MARGIN_MS && a.at <= slow.offAskedAt;
    return a.status >= 300 ? !isUpstreamTimeout(a.status, a.body) : heldPastDeadline;
  });
  check(
    'the mixed load’s playground requests failed only with 504 upstream_timeout, and none answered 2xx while the toxic held',
    mixedTimeouts.length > 0 && mixedWrong.length === 0,
    {
      timeouts: mixedTimeouts.length,
      wrong: mixedWrong.slice(0, 5).map(({ status, path, at, body }) => ({ status, path, msAfterToxic: at - slow.onAt, body: body.slice(0, 200) })),
    },
  );
  const before = probes.filter((p) => p.endedAt < slow.onAskedAt);
  check(
    'before the toxic, the probes answered 2xx',
    before.length > 0 && before.every(ok),
    before
      .filter((p) => !ok(p))
      .slice(0, 5)
      .map(brief),
  );

  // (b) Routes that do not touch the playground keep answering: every answer of the load and of their probes 2xx,
  // and each route's probes answered while the toxic held.
  const others = [...answers.filter((a) => playgroundDeadline(a.path) === undefined), ...otherProbes];
  const othersFailed = others.filter((a) => a.status < 200 || a.status >= 300);
  const duringSlow = countBy(
    otherProbes.filter((a) => a.at >= slow.onAt && a.at <= slow.offAskedAt && a.status < 300),
    (a) => routeOf(a.path),
  );
  const otherRoutes = [...new Set(others.map((a) => routeOf(a.path)))];
  check(
    'routes that do not call the playground answered 2xx throughout, each of them (its probes) while the toxic held',
    othersFailed.length === 0 && otherRoutes.every((r) => duringSlow[r] > 0),
    {
      failed: othersFailed.slice(0, 5).map(({ status, path, at, body }) => ({ status, path, msAfterToxic: at - slow.onAt, body: body.slice(0, 200) })),
      answeredWhileSlow: duringSlow,
    },
  );

  // (c) Calls in flight stay bounded, and nothing is left behind.
  const inFlight = inFlightByGateway(samples, slow, drain.length);
  check(
    `each gateway's playground calls in flight rose while the toxic held and stayed at most ${bound.calls} (${bound.connectionsPerGateway} connections + ${bound.probes} probes)`,
    inFlight.every((g) => g.unreadable === 0 && g.maxWhileSlow > 0 && g.max <= bound.calls),
    inFlight,
  );
  check(
    `after the load, each gateway's playground calls in flight back at 0 within ${DEADLINE_MS + ON_TIME_MARGIN_MS} ms`,
    drain.every((d) => d.ms !== undefined && d.ms <= DEADLINE_MS + ON_TIME_MARGIN_MS),
    drain,
  );
  const seen504 = probes.filter((p) => p.status === 504).length + answers.filter((a) => a.status === 504 && playgroundDeadline(a.path) !== undefined).length;
  const exceeded = deadlineExceeded.reduce((a, b) => a + b, 0);
  check('the 504s the clients saw were as many as the gateways’ playground calls that ended DEADLINE_EXCEEDED', seen504 > 0 && seen504 === exceeded, {
    seen504,
    deadlineExceeded,
  });

  // (d) Recovery.
  const recoveredBy = slow.offAt + RECOVERED_WITHIN_MS;
  const afterProbes = probes.filter((p) => p.endedAt > recoveredBy || p.startedAt > slow.offAt);
  const afterAnswers = answers.filter((a) => a.at > recoveredBy);
  check(
    `every probe sent after the toxic's removal, and every answer from ${RECOVERED_WITHIN_MS} ms after it, was 2xx`,
    afterProbes.length > 0 && afterProbes.every(ok) && afterAnswers.length > 0 && afterAnswers.every((a) => a.status < 300),
    {
      probes: afterProbes.length,
      answers: afterAnswers.length,
      failed: [
        ...afterProbes.filter((p) => !ok(p)).map(brief),
        ...afterAnswers.filter((a) => a.status >= 300).map(({ status, path }) => ({ status, path })),
      ].slice(0, 5),
    },
  );

  // (e) Nothing failed at a client.
  const probeErrors = probes.filter((p) => p.status === 0);
  check('no error, reset or timeout at a client', load.errors === 0 && load.timeouts === 0 && probeErrors.length === 0, {
    loadErrors: load.errors,
    loadTimeouts: load.timeouts,
    first: load.firstErrors,
    probeErrors: probeErrors.slice(0, 5).map(brief),
  });
}

const ok = (probe) => probe.status >= 200 && probe.status < 300;
const brief = ({ path, status, ms, deadlineMs, error, body }) => ({
  path,
  status,
  ms: Math.round(ms),
  deadlineMs,
  ...(error ? { error } : {}),
  ...(status >= 300 ? { body: body?.slice(0, 200) } : {}),
});

function countBy(items, keyOf) {
  const counts = {};
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
  return counts;
}

/** Each gateway's highest playground calls in flight over the run and while the toxic held, from its scrapes (and how many lacked the gauge). */
function inFlightByGateway(samples, slow, gateways) {
  return Array.from({ length: gateways }, (_, gateway) => {
    const own = samples.filter((s) => s.gateway === gateway);
    const values = own.map((s) => s.inFlight).filter((v) => v !== undefined);
    const whileSlow = own.filter((s) => s.at >= slow.onAt && s.at <= slow.offAskedAt && s.inFlight !== undefined).map((s) => s.inFlight);
    return { scrapes: own.length, unreadable: own.length - values.length, max: Math.max(-1, ...values), maxWhileSlow: Math.max(-1, ...whileSlow) };
  });
}

// ----------------------------------------------------------------- figures

function figures({ t0, slow, probes, answers, load, samples, drain, deadlineExceeded, bound, checks }) {
  const timeouts = probes.filter((p) => p.status === 504);
  const byDeadline = {};
  for (const p of timeouts) (byDeadline[`deadline ${p.deadlineMs} ms`] ??= []).push(p.ms);
  const playgroundAnswers = answers.filter((a) => playgroundDeadline(a.path) !== undefined);
  const inFlight = inFlightByGateway(samples, slow, drain.length);
  return {
    deadlineMs: DEADLINE_MS,
    latencyMs: LATENCY_MS,
    toxicMs: { askedAt: slow.onAskedAt - t0, on: slow.onAt - t0, offAskedAt: slow.offAskedAt - t0, off: slow.offAt - t0 },
    probes: {
      sent: probes.length,
      statuses: countBy(probes, (p) => `${routeOf(p.path)} ${p.status}`),
      timeoutMs: Object.fromEntries(Object.entries(byDeadline).map(([k, ms]) => [k, { n: ms.length, ...percentiles(ms) }])),
      firstOkAfterRemovalMs: firstOkAfter(
        probes.map((p) => ({ ok: ok(p), at: p.endedAt, path: p.path })),
        slow.offAt,
      ),
    },
    mixed: {
      requests: load.requests,
      rps: load.rps,
      latencyMs: load.latencyMs,
      statuses: load.statuses,
      playgroundStatuses: countBy(playgroundAnswers, (a) => `${routeOf(a.path)} ${a.status}`),
      firstOkAfterRemovalMs: firstOkAfter(
        playgroundAnswers.map((a) => ({ ok: a.status < 300, at: a.at, path: a.path })),
        slow.offAt,
      ),
    },
    gateways: {
      playgroundCallsInFlightBound: bound,
      maxPlaygroundCallsInFlight: inFlight.map((g) => g.max),
      maxPlaygroundCallsInFlightWhileSlow: inFlight.map((g) => g.maxWhileSlow),
      drainedAfterLoadMs: drain.map((d) => d.ms),
      playgroundDeadlineExceeded: deadlineExceeded,
      playground504sSeen: timeouts.length + playgroundAnswers.filter((a) => a.status === 504).length,
    },
    checks,
  };
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  return { p50: at(0.5), p99: at(0.99), max: Math.round(sorted[sorted.length - 1]) };
}

/** How long after the removal the first 2xx came on each playground route. */
function firstOkAfter(answers, at) {
  const first = {};
  for (const a of answers) if (a.ok && a.at >= at) first[routeOf(a.path)] = Math.min(first[routeOf(a.path)] ?? Infinity, a.at - at);
  return first;
}

// ------------------------------------------------------------------ probes

/** A probe every PROBE_EVERY_MS on each gateway, from t0 until endAt, the routes taken in turn; resolves to every answer, timed. */
async function runProbes(gateways, t0, endAt) {
  const agents = gateways.map(() => new http.Agent({ keepAlive: true }));
  const pending = [];
  // Bounded by time, and by count should the clock misbehave.
  for (let tick = 0; Date.now() < endAt && tick < 10_000; tick++) {
    for (const [g, baseUrl] of gateways.entries()) pending.push(probe(baseUrl, PROBE_ROUTES[(tick + g) % PROBE_ROUTES.length], agents[g]));
    await sleep(Math.max(0, t0 + (tick + 1) * PROBE_EVERY_MS - Date.now()));
  }
  const results = await Promise.all(pending);
  for (const agent of agents) agent.destroy();
  return results;
}

/** The mix's requests that do not call the playground, each sent every OTHERS_EVERY_MS to the gateways in turn; their answers, timed. */
async function runOtherRoutes(gateways, requests, t0, endAt) {
  const others = requests.filter((request) => playgroundDeadline(request.path) === undefined);
  const answers = [];
  const pending = [];
  for (let tick = 0; Date.now() < endAt && tick < 10_000; tick++) {
    const baseUrl = gateways[tick % gateways.length];
    for (const request of others) pending.push(sendOnce(baseUrl, request).then((answer) => answers.push(answer)));
    await sleep(Math.max(0, t0 + (tick + 1) * OTHERS_EVERY_MS - Date.now()));
  }
  await Promise.all(pending);
  return answers;
}

/** One of the mix's requests (an autocannon request object, signed afresh if it signs), as a client would send it. */
async function sendOnce(baseUrl, request) {
  const { path, method = 'GET', headers = {}, body } = request.setupRequest ? request.setupRequest({ ...request }) : request;
  try {
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(DEADLINE_MS + PROBE_TIMEOUT_EXTRA_MS) });
    return { status: res.status, path, at: Date.now(), body: await res.text() };
  } catch (error) {
    return { status: 0, path, at: Date.now(), body: String(error.message) };
  }
}

/** One GET with its own request id, timed from sending to the last byte. */
function probe(baseUrl, path, agent) {
  const requestId = `slow-${randomBytes(6).toString('hex')}`;
  const deadlineMs = playgroundDeadline(path);
  const startedAt = Date.now();
  const t = performance.now();
  return new Promise((resolve) => {
    const done = (status, body, error) =>
      resolve({ path, deadlineMs, requestId, startedAt, endedAt: Date.now(), ms: performance.now() - t, status, body, ...(error ? { error } : {}) });
    const req = http.get(`${baseUrl}${path}`, { agent, headers: { 'x-request-id': requestId } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => done(res.statusCode, Buffer.concat(chunks).toString('utf8')));
      res.on('error', (error) => done(0, '', error.message));
    });
    req.setTimeout(deadlineMs + PROBE_TIMEOUT_EXTRA_MS, () => req.destroy(new Error('client timeout')));
    req.on('error', (error) => done(0, '', error.message));
  });
}

// ------------------------------------------------------- gateways' metrics

/**
 * What a gateway's /metrics says of its playground calls: in flight now
 * (undefined if the gauge is missing, so that a broken gauge cannot pass for
 * 0), and how many have ended DEADLINE_EXCEEDED so far.
 */
async function gatewayFigures(url) {
  const text = await (await fetch(url)).text();
  const inFlight = /^sandbox_grpc_client_calls_in_flight\{[^}]*service="playground"[^}]*\} (\S+)/m.exec(text)?.[1];
  return {
    inFlight: inFlight === undefined ? undefined : Number(inFlight),
    deadlineExceeded: [...text.matchAll(/^sandbox_grpc_client_calls_total\{[^}]*service="playground"[^}]*code="DEADLINE_EXCEEDED"[^}]*\} (\S+)/gm)].reduce(
      (total, m) => total + Number(m[1]),
      0,
    ),
  };
}

/** How long after `since` (the load's end) each gateway's playground calls in flight read 0, with the values seen on the way (each change). */
async function untilDrained(urls, since) {
  const drain = urls.map(() => ({ ms: undefined, seen: [] }));
  for (let i = 0; drain.some((d) => d.ms === undefined) && Date.now() - since < DRAIN_LIMIT_MS && i < 1000; i++) {
    await Promise.all(
      urls.map(async (url, g) => {
        if (drain[g].ms !== undefined) return;
        const { inFlight } = await gatewayFigures(url).catch(() => ({}));
        if (drain[g].seen.at(-1) !== (inFlight ?? null)) drain[g].seen.push(inFlight ?? null);
        if (inFlight === 0) drain[g].ms = Date.now() - since;
      }),
    );
    await sleep(DRAIN_EVERY_MS);
  }
  return drain;
}

/** Scrapes every gateway every METRICS_EVERY_MS until endAt. */
async function sampleMetrics(urls, endAt) {
  const samples = [];
  while (Date.now() < endAt && samples.length < 10_000) {
    const at = Date.now();
    const scraped = await Promise.all(urls.map((url) => gatewayFigures(url).catch(() => undefined)));
    for (const [gateway, figures] of scraped.entries()) if (figures) samples.push({ gateway, at, ...figures });
    await sleep(Math.max(0, at + METRICS_EVERY_MS - Date.now()));
  }
  return samples;
}

// ------------------------------------------------------- the sandbox's log

/** The services' JSON log lines (the launcher's own lines are plain text). */
function logRecords(logFile) {
  const records = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      // a line cut short by the read: not one we need
    }
  }
  return records;
}

/**
 * The first `count` log records that match, once they are all in the file:
 * each process writes its log asynchronously, so a line may land after the
 * launcher's ready line.
 */
async function untilLogged(logFile, matches, count) {
  const limit = Date.now() + LOG_LINE_LIMIT_MS;
  for (;;) {
    const found = logRecords(logFile).filter(matches);
    if (found.length >= count) return found.slice(0, count);
    if (Date.now() > limit) throw new Error(`expected ${count} such lines in ${logFile} within ${LOG_LINE_LIMIT_MS} ms, found ${JSON.stringify(found)}`);
    await sleep(50);
  }
}

/** The port of the playground replica the launcher placed itself (replica 1 has the port given). */
function otherReplicaPort(ports, replicaOnePort) {
  const others = ports.filter((port) => port !== replicaOnePort);
  if (others.length !== 1) throw new Error(`expected one other playground replica in the log, found ports ${ports.join(', ')}`);
  return others[0];
}

/**
 * Each gateway opens its call stream to a replica at its first call and
 * retries one it could not reach (replica 2's proxy came after the start)
 * within a second: send echoes through one gateway at a time until both
 * replicas' own metrics have counted some. (toxiproxy's byte counts would not
 * say: it adds a connection's bytes up only when the connection closes.)
 */
async function untilEveryGatewayReachesEveryReplica(gateways, replicaMetricsUrls) {
  const echoesServed = (url) =>
    fetch(url).then(async (res) =>
      [...(await res.text()).matchAll(/^sandbox_grpc_server_calls_total\{[^}]*method="Echo"[^}]*\} (\S+)/gm)].reduce((n, m) => n + Number(m[1]), 0),
    );
  const limit = Date.now() + WARM_UP_LIMIT_MS;
  for (const baseUrl of gateways) {
    const reached = new Set();
    for (let round = 0; reached.size < replicaMetricsUrls.length && round < 100; round++) {
      if (Date.now() > limit) throw new Error(`warm-up: ${baseUrl} did not reach both playground replicas within ${WARM_UP_LIMIT_MS} ms`);
      const before = await Promise.all(replicaMetricsUrls.map(echoesServed));
      for (let i = 0; i < 4; i++) await fetch(`${baseUrl}/playground/echo?warm=1`).then((res) => res.arrayBuffer());
      const after = await Promise.all(replicaMetricsUrls.map(echoesServed));
      for (const [replica, count] of after.entries()) if (count > before[replica]) reached.add(replica);
      if (reached.size < replicaMetricsUrls.length) await sleep(250);
    }
  }
}

// --------------------------------------------------------------- toxiproxy

/** TOXIPROXY_BIN, or the pinned build of scripts/lib/toxiproxy.sh (built now if missing). */
function toxiproxyBinary() {
  if (process.env.TOXIPROXY_BIN) return process.env.TOXIPROXY_BIN;
  return execFileSync('bash', ['-c', 'source scripts/lib/toxiproxy.sh && ensure_toxiproxy && printf %s "$TOXIPROXY_BIN"'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 15 * 60_000,
  });
}

/** toxiproxy-server on a free loopback port, driven through its HTTP API; `stop()` ends it and removes its log. */
async function startToxiproxy(bin) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'chaos-toxiproxy-'));
  const logFile = join(dir, 'toxiproxy.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(bin, ['-host', '127.0.0.1', '-port', String(port)], { stdio: ['ignore', fd, fd], env: { PATH: process.env.PATH, LOG_LEVEL: 'warn' } });
  closeSync(fd);
  let spawnError;
  child.once('error', (error) => (spawnError = error));
  const api = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (!spawnError && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(forced);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const limit = Date.now() + TOXIPROXY_START_LIMIT_MS;
  while (
    !(await fetch(`${api}/version`).then(
      (res) => res.ok,
      () => false,
    ))
  ) {
    if (spawnError || child.exitCode !== null || Date.now() > limit) {
      const why = spawnError?.message ?? readFileSync(logFile, 'utf8').slice(-500);
      await stop();
      throw new Error(`toxiproxy did not start on ${port}: ${why}`);
    }
    await sleep(50);
  }
  const send = async (method, path, body) => {
    const res = await fetch(`${api}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    if (!res.ok) throw new Error(`toxiproxy ${method} ${path}: ${res.status} ${await res.text()}`);
  };
  return {
    createProxy: (name, listenPort, upstreamPort) =>
      send('POST', '/proxies', { name, listen: `127.0.0.1:${listenPort}`, upstream: `127.0.0.1:${upstreamPort}`, enabled: true }),
    // Downstream: the service answers at once, its answers reach the gateway late (a slow service, as its callers see it).
    addLatency: (proxy, latencyMs) =>
      send('POST', `/proxies/${proxy}/toxics`, {
        name: 'slow',
        type: 'latency',
        stream: 'downstream',
        toxicity: 1,
        attributes: { latency: latencyMs, jitter: 0 },
      }),
    removeLatency: (proxy) => send('DELETE', `/proxies/${proxy}/toxics/slow`),
    stop,
  };
}
