// Chaos scenario (issue #21): Redis stopped for 5 s, then MongoDB (FerretDB)
// stopped for 5 s, under the mixed load over both gateways. Rules: the
// routes that need the stopped store answer 503 naming it within 1 s, the
// routes that do not keep answering 2xx, /health/ready answers 503 naming it,
// everything answers 2xx again within 2 s of its return, and every account,
// app, credential and refresh family written before the outages is intact.
//
// The scenario owns its stores (it has to stop them): a redis-server and a
// FerretDB of its own on free loopback ports, with their data in a temporary
// directory, started from REDIS_SERVER_BIN and FERRETDB_BIN (exported by
// scripts/lib/provision.sh; `npm run chaos` ensures both). A stop is a crash,
// kill -9, the harder outage; the same process comes back on the same port
// with the same data.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, freePort } from '../lib.mjs';
import { mixedRequests, runMixedLoad, startReplicatedSandbox } from '../mixed-load.mjs';
import { checklist } from './checklist.mjs';

/** Load before the first stop, so every route, cache and connection is warm. */
const FIRST_STOP_MS = 3000;
const OUTAGE_MS = 5000;
/** After a store's return, before the next stop and before the end: twice the recovery allowed. */
const SETTLE_MS = 4000;
/** The rules' margins. */
const NAMED_503_WITHIN_MS = 1000;
const RECOVERED_WITHIN_MS = 2000;
/**
 * /health/ready follows each service's dependency check (every 1 s, 0.8 s
 * to answer: packages/runtime/src/dependency-monitor.ts), so it may name a
 * store up to about 2 s after it stopped.
 */
const READY_NAMES_WITHIN_MS = 2000;
/** A probe (or a request of the setup or the final check) not answered by then counts as a client timeout. */
const PROBE_TIMEOUT_MS = 10_000;
const STORE_START_TIMEOUT_MS = 20_000;

const ACCOUNTS = 2;
const APPS_PER_ACCOUNT = 2;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const PAGE = '/playground/data/hr/employees?page=1&page_size=5';

/** How each store is named: in /health/ready's `down`, and in a 503's message. */
const STORES = { redis: 'Redis', mongodb: 'MongoDB' };

export const title = 'Redis stopped for 5 s, then MongoDB stopped for 5 s';

export async function run({ connections }) {
  const stores = await startOwnStores();
  const { check, checks } = checklist();
  let sandbox;
  try {
    sandbox = await startReplicatedSandbox('chaos-store', {}, { REDIS_URL: stores.redis.url, MONGO_URL: stores.mongodb.url });
    const [baseUrl] = sandbox.gateways;
    const accounts = await writeKnownState(baseUrl);
    const outages = ['redis', 'mongodb'].map((store, i) => ({ store, stopAtMs: FIRST_STOP_MS + i * (OUTAGE_MS + SETTLE_MS) }));
    const seconds = (FIRST_STOP_MS + outages.length * (OUTAGE_MS + SETTLE_MS)) / 1000;
    const { requests } = await mixedRequests(baseUrl, seconds, 'chaos-store');
    const routes = probeRoutes(accounts[0], await clientCredentialsToken(baseUrl, accounts[0].apps[0]));

    const t0 = Date.now();
    const elapsed = () => Date.now() - t0;
    const probes = [];
    const pending = [];
    let tick = 0;
    const load = await runMixedLoad(sandbox.gateways, requests, {
      seconds,
      connections,
      during: () => {
        const ms = elapsed();
        for (const outage of outages) {
          if (outage.stoppedAtMs === undefined && ms >= outage.stopAtMs) {
            outage.stoppedAtMs = ms;
            const stopped = stores[outage.store].kill();
            const returned = stopped.then(() => sleep(Math.max(0, outage.stoppedAtMs + OUTAGE_MS - elapsed()))).then(() => stores[outage.store].start());
            // Settled here, never rejected: the load still runs when it settles.
            pending.push(
              returned.then(
                () => (outage.returnedAtMs = elapsed()),
                (error) => (outage.failedToReturn = error.message),
              ),
            );
          }
        }
        const gateway = sandbox.gateways[tick++ % sandbox.gateways.length];
        for (const route of routes) pending.push(probe(gateway, route, elapsed).then((answer) => probes.push(answer)));
      },
    });
    await Promise.all(pending);

    const problems = await verifyKnownState(baseUrl, accounts);
    judge(check, { outages, probes, load, problems, accounts });
    const figures = outages.map(({ store, stoppedAtMs, returnedAtMs }, i) => ({
      store,
      stoppedAtMs,
      returnedAtMs,
      ...outageFigures(store, stoppedAtMs, returnedAtMs, outages[i + 1]?.stoppedAtMs ?? Infinity, probes, load),
    }));
    for (const f of figures) {
      console.error(
        `store-outage: ${STORES[f.store]} down from ${f.stoppedAtMs} to ${f.returnedAtMs} ms: first 503 naming it after ${f.first503NamingItMs} ms (the slowest took ${f.slowest503Ms} ms), ` +
          `/health/ready named it after ${f.readyNamesItMs ?? '(never)'} ms; ${f.loadFailures.count} answers of the load failed; ` +
          `last failure after its return, by route: ${JSON.stringify(f.lastFailureAfterReturnMs)}`,
      );
    }
    return {
      outages: figures,
      requests: load.requests,
      rps: load.rps,
      latencyMs: load.latencyMs,
      statuses: load.statuses,
      failed: load.failedAt.length,
      probes: probes.length,
      checks,
    };
  } finally {
    await sandbox?.stop();
    await stores.stop();
  }
}

// ---------------------------------------------------------------- the stores

/**
 * Redis and FerretDB on free loopback ports, each with its data directory
 * under one temporary directory; `stop()` ends both and removes it.
 *
 * Redis keeps its data in an append-only file written and fsynced before
 * each write is answered (appendonly yes, appendfsync always): the stop is a
 * crash, and a snapshot (SHUTDOWN SAVE) would only cover a polite stop, so
 * every write Redis acknowledged is on disk when it dies. FerretDB keeps its
 * data in SQLite files (--sqlite-url), whose commits survive the process.
 */
async function startOwnStores() {
  const { REDIS_SERVER_BIN, FERRETDB_BIN } = process.env;
  if (!REDIS_SERVER_BIN || !FERRETDB_BIN) {
    throw new Error('store-outage needs REDIS_SERVER_BIN and FERRETDB_BIN (npm run chaos sets both through scripts/lib/provision.sh)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'chaos-stores-'));
  mkdirSync(join(dir, 'redis'));
  mkdirSync(join(dir, 'sqlite'));
  const [redisPort, mongoPort] = [await freePort(), await freePort()];
  const redis = ownedStore(
    REDIS_SERVER_BIN,
    [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--maxmemory-policy',
      'noeviction',
      '--dir',
      join(dir, 'redis'),
      '--daemonize',
      'no',
    ],
    redisPort,
    join(dir, 'redis.log'),
  );
  const mongodb = ownedStore(
    FERRETDB_BIN,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${join(dir, 'sqlite')}/`,
      `--listen-addr=127.0.0.1:${mongoPort}`,
      `--state-dir=${dir}`,
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=warn',
    ],
    mongoPort,
    join(dir, 'ferretdb.log'),
  );
  const stop = async () => {
    await Promise.all([redis.kill(), mongodb.kill()]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all([redis.start(), mongodb.start()]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { redis: { ...redis, url: `redis://127.0.0.1:${redisPort}` }, mongodb: { ...mongodb, url: `mongodb://127.0.0.1:${mongoPort}` }, stop };
}

/** One store process, started and killed as often as asked, always with the same arguments (port, data). */
function ownedStore(command, args, port, logFile) {
  let child;
  return {
    async start() {
      const fd = openSync(logFile, 'a');
      let spawnError;
      child = spawn(command, args, { stdio: ['ignore', fd, fd] });
      child.once('error', (error) => (spawnError = error));
      closeSync(fd);
      const deadline = Date.now() + STORE_START_TIMEOUT_MS;
      while (!(await accepts(port))) {
        if (spawnError) throw new Error(`${command} could not be started: ${spawnError.message}`);
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${command} did not listen on ${port}; see ${logFile}`);
        await sleep(20);
      }
    },
    async kill() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Whether something accepts a TCP connection on the loopback port now. */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

// ---------------------------------------------------- the state to find again

/** Accounts, each with apps (every credential) and one OAuth refresh family per app, written through the gateway. */
async function writeKnownState(baseUrl) {
  const accounts = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const email = `outage-${a}-${randomBytes(4).toString('hex')}@example.org`;
    const password = `outage-password-${a}`;
    const { token: session } = await call(baseUrl, 'POST', '/api/auth/register', { body: { email, password } });
    const apps = [];
    for (let i = 0; i < APPS_PER_ACCOUNT; i++) {
      const app = await call(baseUrl, 'POST', '/api/apps', { token: session, body: { name: `outage ${a}.${i}`, redirectUris: [REDIRECT_URI] } });
      apps.push({ ...app, refreshToken: await startRefreshFamily(baseUrl, app) });
    }
    accounts.push({ email, password, session, apps });
  }
  return accounts;
}

/** The authorization-code flow with PKCE (docs/oauth.md): its refresh token starts a family. */
async function startRefreshFamily(baseUrl, app) {
  const verifier = randomBytes(48).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.appId,
    redirect_uri: REDIRECT_URI,
    scope: 'hr:read',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const authorized = await fetch(`${baseUrl}/oauth/authorize?${query}`, { redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  const code = new URL(authorized.headers.get('location') ?? REDIRECT_URI).searchParams.get('code');
  if (!code) throw new Error(`authorize answered ${authorized.status} without a code`);
  const { status, body } = await tokenRequest(baseUrl, app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
  if (status !== 200 || !body.refresh_token) throw new Error(`authorization_code: ${status} ${JSON.stringify(body)}`);
  return body.refresh_token;
}

async function tokenRequest(baseUrl, app, params) {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  return { status: res.status, body: await res.json() };
}

async function clientCredentialsToken(baseUrl, app) {
  const { status, body } = await tokenRequest(baseUrl, app, { grant_type: 'client_credentials', scope: 'hr:read' });
  if (status !== 200) throw new Error(`client_credentials: ${status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/**
 * Everything written before the outages, read back through the gateway: each
 * account signs in and its session still lists exactly its apps, unchanged;
 * each app's API key and bearer token still authenticate, its secret still
 * gets a token, and its refresh token still refreshes. Returns what failed.
 */
async function verifyKnownState(baseUrl, accounts) {
  const problems = [];
  const expect = (ok, what) => ok || problems.push(what);
  const signal = () => AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const get = async (path, headers) => (await fetch(`${baseUrl}${path}`, { headers, signal: signal() })).status;
  for (const account of accounts) {
    const login = await fetch(`${baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: account.password }),
      signal: signal(),
    });
    expect(login.status === 200, `${account.email}: sign-in answered ${login.status}`);
    const listed = await fetch(`${baseUrl}/api/apps`, { headers: { Authorization: `Bearer ${account.session}` }, signal: signal() });
    const apps = listed.status === 200 ? (await listed.json()).apps : [];
    expect(listed.status === 200, `${account.email}: the session from before lists apps with ${listed.status}`);
    expect(apps.length === account.apps.length, `${account.email}: ${apps.length} apps listed, ${account.apps.length} written`);
    for (const app of account.apps) {
      const found = apps.find((a) => a.id === app.id);
      const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
      expect(
        found &&
          same(
            [found.appId, found.name, found.redirectUris, found.status, found.credentials],
            [app.appId, app.name, app.redirectUris, app.status, app.credentials],
          ),
        `${app.appId}: listed as ${JSON.stringify(found)}`,
      );
      const byKey = await get(PAGE, { 'x-api-key': app.apiKey });
      expect(byKey === 200, `${app.appId}: its API key answered ${byKey}`);
      const byBearer = await get(PAGE, { Authorization: `Bearer ${app.bearerToken}` });
      expect(byBearer === 200, `${app.appId}: its bearer token answered ${byBearer}`);
      const bySecret = await tokenRequest(baseUrl, app, { grant_type: 'client_credentials' });
      expect(bySecret.status === 200, `${app.appId}: its client secret got ${bySecret.status} ${JSON.stringify(bySecret.body)}`);
      const refreshed = await tokenRequest(baseUrl, app, { grant_type: 'refresh_token', refresh_token: app.refreshToken });
      expect(
        refreshed.status === 200 && refreshed.body.refresh_token,
        `${app.appId}: its refresh token got ${refreshed.status} ${JSON.stringify(refreshed.body)}`,
      );
    }
  }
  return problems;
}

// ------------------------------------------------------------------- probes

/** What is asked every 100 ms during the load, and which stores each route needs. */
function probeRoutes(account, accessToken) {
  const [app] = account.apps;
  return [
    { route: 'echo', needs: [], path: '/playground/echo?probe=1' },
    { route: 'portal app list (session)', needs: ['mongodb'], path: '/api/apps', headers: { Authorization: `Bearer ${account.session}` } },
    // The gateway remembers a credential's verdict at most 500 ms (CREDENTIAL_CACHE_MS): too short to outlast an outage.
    { route: 'data page, API key', needs: ['mongodb'], path: PAGE, headers: { 'x-api-key': app.apiKey } },
    // An access token's revocation is looked up in Redis, its app in identity (MongoDB).
    { route: 'data page, OAuth access token', needs: ['redis', 'mongodb'], path: PAGE, headers: { Authorization: `Bearer ${accessToken}` } },
    { route: '/health/ready', readiness: true, needs: [], path: '/health/ready' },
  ];
}

/** One request, timed against the scenario's clock; a failure to answer is recorded, never thrown. */
async function probe(gateway, { route, needs, readiness, path, headers }, elapsed) {
  const sentMs = elapsed();
  try {
    const res = await fetch(`${gateway}${path}`, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = await res.text();
    // Readiness bodies are parsed (they name what is down, and now each part's age): kept whole; others cut for the report.
    return { route, needs, readiness, sentMs, answeredMs: elapsed(), status: res.status, body: readiness ? body : body.slice(0, 300) };
  } catch (error) {
    return { route, needs, readiness, sentMs, answeredMs: elapsed(), status: 0, error: error.name === 'TimeoutError' ? 'client timeout' : error.message };
  }
}

const parsed = (body) => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};
/** The message a refusal carries, in either error format (the API's or OAuth's, docs/errors.md). */
const messageOf = (body) => parsed(body)?.error?.message ?? parsed(body)?.error_description ?? '';

const ok = (answer) => answer.status >= 200 && answer.status < 300;
const names503 = (answer, store) => answer.status === 503 && messageOf(answer.body).includes(STORES[store]);
const readyNames = (answer, store) => answer.status === 503 && Boolean(parsed(answer.body)?.down?.includes(store));

// ------------------------------------------------------------------ judging

function judge(check, { outages, probes, load, problems, accounts }) {
  for (const [i, { store, stoppedAtMs, returnedAtMs, failedToReturn }] of outages.entries()) {
    const name = STORES[store];
    const nextStopMs = outages[i + 1]?.stoppedAtMs ?? Infinity;
    check(`${name} was killed and started again on its port with its data`, stoppedAtMs !== undefined && returnedAtMs !== undefined, {
      stoppedAtMs,
      returnedAtMs,
      failedToReturn,
    });
    // Every probe in flight at some moment of the outage.
    const down = probes.filter((p) => p.sentMs < returnedAtMs && p.answeredMs >= stoppedAtMs);

    const needing = down.filter((p) => p.needs.includes(store));
    const first503 = Math.min(...needing.filter((p) => names503(p, store)).map((p) => p.answeredMs)) - stoppedAtMs;
    const inTime = (p) =>
      (names503(p, store) && p.answeredMs - Math.max(p.sentMs, stoppedAtMs) <= NAMED_503_WITHIN_MS) ||
      // A verdict from before the stop (the gateway remembers a credential's for 500 ms) or an answer after the return.
      (ok(p) && (p.answeredMs <= stoppedAtMs + NAMED_503_WITHIN_MS || p.answeredMs >= returnedAtMs));
    const late = needing.filter((p) => !inTime(p));
    check(`${name} down: the routes that need it answer 503 naming it within ${NAMED_503_WITHIN_MS} ms`, first503 <= NAMED_503_WITHIN_MS && late.length === 0, {
      first503AfterStopMs: first503,
      otherwise: late.slice(0, 5),
    });

    const others = down.filter((p) => !p.readiness && !p.needs.includes(store)).filter((p) => !ok(p));
    check(`${name} down: the routes that do not need it keep answering 2xx`, others.length === 0, others.slice(0, 5));

    const ready = down
      .filter((p) => p.readiness && p.sentMs >= stoppedAtMs + READY_NAMES_WITHIN_MS && p.answeredMs < returnedAtMs)
      .filter((p) => !readyNames(p, store));
    check(`${name} down: /health/ready answers 503 naming it (from ${READY_NAMES_WITHIN_MS} ms after the stop)`, ready.length === 0, ready.slice(0, 3));

    const recoveredFromMs = returnedAtMs + RECOVERED_WITHIN_MS;
    const notBack = probes.filter((p) => p.sentMs >= recoveredFromMs && p.answeredMs < nextStopMs && !ok(p));
    const loadNotBack = load.failedAt.filter((f) => f.ms >= recoveredFromMs && f.ms < nextStopMs);
    check(`everything answers 2xx from ${RECOVERED_WITHIN_MS} ms after ${name}'s return`, notBack.length === 0 && loadNotBack.length === 0, {
      probes: notBack.slice(0, 5),
      load: loadNotBack.slice(0, 5),
    });
  }

  const explained = (f) =>
    outages.some(({ store, stoppedAtMs, returnedAtMs }) => names503(f, store) && f.ms >= stoppedAtMs && f.ms < returnedAtMs + RECOVERED_WITHIN_MS);
  const unexplained = load.failedAt.filter((f) => !explained(f));
  check('under the load, every failure is a 503 naming the store that was down, while it was down or recovering', unexplained.length === 0, {
    count: unexplained.length,
    first: unexplained.slice(0, 5),
  });
  const unanswered = probes.filter((p) => p.status === 0 || (p.status >= 500 && p.status !== 503));
  check('no 500, no reset, no client timeout', unanswered.length === 0 && load.errors === 0 && load.timeouts === 0 && !load.statuses[500], {
    probes: unanswered.slice(0, 5),
    load: { errors: load.errors, timeouts: load.timeouts, first: load.firstErrors, 500: load.statuses[500] ?? 0 },
  });
  const apps = accounts.flatMap((a) => a.apps).length;
  check(
    `every account (${accounts.length}), app and credential (${apps}) and refresh family (${apps}) written before the outages is intact`,
    problems.length === 0,
    problems,
  );
}

/**
 * What one outage looked like from outside: how soon the 503s and
 * /health/ready named the store, what /health/ready listed as down, and how
 * long after the return each route last failed.
 */
function outageFigures(store, stoppedAtMs, returnedAtMs, nextStopMs, probes, load) {
  const finite = (ms) => (Number.isFinite(ms) ? ms : undefined);
  const firstAfterStop = (test) =>
    finite(Math.min(...probes.filter((p) => p.answeredMs >= stoppedAtMs && p.answeredMs < returnedAtMs && test(p)).map((p) => p.answeredMs)) - stoppedAtMs);
  const window = probes.filter((p) => p.answeredMs >= stoppedAtMs && p.answeredMs < nextStopMs);
  const lastFailureAfterReturnMs = {};
  for (const route of new Set(probes.map((p) => p.route))) {
    const failed = window.filter((p) => p.route === route && !ok(p)).map((p) => p.answeredMs);
    lastFailureAfterReturnMs[route] =
      failed.length === 0 ? 'never failed' : Math.max(...failed) < returnedAtMs ? 'back before the return' : Math.max(...failed) - returnedAtMs;
  }
  const downLists = new Set(
    window.filter((p) => p.readiness && p.answeredMs < returnedAtMs && p.status === 503).map((p) => JSON.stringify(parsed(p.body)?.down)),
  );
  const failed = load.failedAt.filter((f) => f.ms >= stoppedAtMs && f.ms < returnedAtMs + RECOVERED_WITHIN_MS);
  const named = probes.filter((p) => p.answeredMs >= stoppedAtMs && p.sentMs < returnedAtMs && names503(p, store));
  return {
    first503NamingItMs: firstAfterStop((p) => names503(p, store)),
    slowest503Ms: named.length ? Math.max(...named.map((p) => p.answeredMs - Math.max(p.sentMs, stoppedAtMs))) : undefined,
    readyNamesItMs: firstAfterStop((p) => p.readiness && readyNames(p, store)),
    readyDownLists: [...downLists],
    lastFailureAfterReturnMs,
    loadFailures: {
      count: failed.length,
      statuses: countBy(failed, (f) => f.status),
      naming: countBy(failed, (f) => Object.keys(STORES).find((s) => names503(f, s)) ?? 'neither'),
    },
  };
}

const countBy = (items, key) => items.reduce((counts, item) => ((counts[key(item)] = (counts[key(item)] ?? 0) + 1), counts), {});
