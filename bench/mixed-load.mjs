// What the soak and the chaos scenarios share (issue #21): the sandbox with
// two replicas of every process and real stores, a mix of every route family,
// and autocannon over both gateways counting every answer by status.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { HMAC_PATH, call, createApps, hmacSigner, startSandbox } from './lib.mjs';

/**
 * REPLICAS=2 with the stores of MONGO_URL (a database of its own) and
 * REDIS_URL, and keys the replicas share; GRPC_TRANSPORT passed on when set
 * (to compare the transports); exits 2 without stores. The stores are this
 * process's environment's unless `stores` names others (a scenario that
 * stops its own). `root`: the repository whose build runs (lib.mjs startSandbox).
 */
export async function startReplicatedSandbox(label, extraEnv = {}, stores = process.env, root = undefined) {
  const { MONGO_URL, REDIS_URL } = stores;
  if (!MONGO_URL || !REDIS_URL) {
    console.error(`${label}: needs MONGO_URL and REDIS_URL (npm run ${label} provisions both)`);
    process.exit(2);
  }
  const key = () => randomBytes(32).toString('base64url');
  const sandbox = await startSandbox(
    {
      REPLICAS: '2',
      MONGO_URL: Object.assign(new URL(MONGO_URL), { pathname: `/${label}-${Date.now()}` }).href,
      REDIS_URL,
      CREDENTIAL_ENCRYPTION_KEY: key(),
      SESSION_SIGNING_KEY: key(),
      PAGE_TOKEN_KEY: key(),
      JWT_SIGNING_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      ...(process.env.GRPC_TRANSPORT ? { GRPC_TRANSPORT: process.env.GRPC_TRANSPORT } : {}),
      ...extraEnv,
    },
    root,
  );
  const gateways = /Training Sandbox is ready at ([^(]+)\(/.exec(readFileSync(sandbox.logFile, 'utf8'))[1].trim().split(' ');
  return { ...sandbox, gateways };
}

/**
 * Every route family, each connection cycling through them: data pages with
 * each credential style, a portal read, echo, a client-credentials token, an
 * HMAC-signed request (a fresh signature each), and a 100 ms delay. Enough
 * apps are made that HMAC signatures last `seconds` at up to 10k requests/s.
 */
export async function mixedRequests(baseUrl, seconds, label) {
  const { token: session } = await call(baseUrl, 'POST', '/api/auth/register', {
    body: { email: `${label}-${randomBytes(4).toString('hex')}@example.org`, password: `${label}-password-1` },
  });
  const apps = await createApps(baseUrl, Math.ceil(((10_000 / 9) * seconds) / 561) + 5, label);
  const [app] = apps;
  const basic = `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
  const tokenRequest = {
    method: 'POST',
    headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=hr%3Aread',
  };
  const { access_token: accessToken } = await (await fetch(`${baseUrl}/oauth/token`, tokenRequest)).json();
  const signer = hmacSigner(apps);
  const page = (n) => `/playground/data/hr/employees?page=${n}&page_size=20`;
  return {
    signer,
    requests: [
      { path: page(1), headers: { 'x-api-key': app.apiKey } },
      { path: `${page(2)}&api_key=${encodeURIComponent(app.apiKey)}` },
      { path: page(3), headers: { Authorization: `Bearer ${app.bearerToken}` } },
      { path: page(4), headers: { Authorization: `Bearer ${accessToken}` } },
      { path: '/api/apps', headers: { Authorization: `Bearer ${session}` } },
      { path: '/playground/echo?x=1' },
      { path: '/oauth/token', ...tokenRequest },
      { path: HMAC_PATH, setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...signer.sign() } }) },
      { path: '/playground/response?delay=100' },
    ],
  };
}

/**
 * Runs the mix over every gateway at once (connections split between them)
 * and counts answers by status, with the first few bodies of each status that
 * is not 2xx, when (and with what body) each such answer came, and the first errors. `during(elapsedMs)` is polled every 100 ms
 * while it runs (a scenario's chaos). Each such answer names its path, and
 * `onAnswer({ status, path, ms, body })`, when given, hears of every answer
 * (for a scenario whose rules differ by route).
 */
export async function runMixedLoad(gateways, requests, { seconds, connections, during, onAnswer }) {
  const statuses = {};
  const samples = {};
  const errors = [];
  /** When each answer that is not 2xx came, ms after the start. */
  const failedAt = [];
  const started = Date.now();
  const onResponse = (path, status, body) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    onAnswer?.({ status, path, ms: Date.now() - started, body });
    if (status < 300) return;
    failedAt.push({ status, ms: Date.now() - started, path, body: body.slice(0, 300) });
    if ((samples[status] ??= []).length < 3) samples[status].push(body.slice(0, 300));
  };
  const runs = gateways.map((url) => {
    const run = autocannon({
      url,
      connections: Math.ceil(connections / gateways.length),
      duration: seconds,
      pipelining: 1,
      timeout: 30,
      requests: requests.map((r) => ({ method: 'GET', ...r, onResponse: (status, body) => onResponse(r.path, status, body) })),
    });
    run.on('reqError', (error) => errors.length < 5 && errors.push(error.message));
    return run;
  });
  let polling = Promise.resolve();
  const timer = during ? setInterval(() => (polling = polling.then(() => during(Date.now() - started))), 100) : undefined;
  const results = await Promise.all(runs);
  clearInterval(timer);
  await polling;
  const sum = (field) => results.reduce((total, r) => total + field(r), 0);
  return {
    requests: sum((r) => r.requests.total),
    rps: Math.round(sum((r) => r.requests.average)),
    latencyMs: { p50: Math.max(...results.map((r) => r.latency.p50)), p99: Math.max(...results.map((r) => r.latency.p99)) },
    statuses,
    samples,
    failedAt,
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    firstErrors: errors,
  };
}
