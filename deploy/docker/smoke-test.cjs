// Smoke test of a running sandbox through its public API, for `helm test` and
// for anyone after an install:
//   node deploy/docker/smoke-test.cjs [base URL]        (or SANDBOX_URL)
// Waits for GET /health/ready, signs up a throwaway portal account, creates an
// app, reads one page of data with the app's API key, then deletes the app and
// signs out, also when a step failed. One line per step ("ok - …" or
// "not ok - …: <status> <error code>: <message>"); never prints a password,
// token or key. Exits 0 only if every step passed.
// The API has no way to delete an account, so the account stays (its email
// starts with "smoke-test-", and it holds no app once this has run).
// Environment: SMOKE_READY_SECONDS (how long to wait for readiness, default
// 60), SMOKE_REQUEST_TIMEOUT_MS (each request, default 10000).
// No dependencies (fetch is global from Node 18): it runs in the image as is.
'use strict';

const { randomBytes } = require('node:crypto');

const base = process.argv[2] || process.env.SANDBOX_URL;
const READY_SECONDS = Number(process.env.SMOKE_READY_SECONDS || 60);
const REQUEST_TIMEOUT_MS = Number(process.env.SMOKE_REQUEST_TIMEOUT_MS || 10_000);
const READY_POLL_MS = 1000;

if (!base || !/^https?:\/\//.test(base) || !(READY_SECONDS >= 0) || !(REQUEST_TIMEOUT_MS > 0)) {
  console.error('usage: node deploy/docker/smoke-test.cjs <http(s)://base-url>   (or SANDBOX_URL; SMOKE_READY_SECONDS, SMOKE_REQUEST_TIMEOUT_MS)');
  process.exit(2);
}
// Relative paths below resolve under the base, so a base with a path prefix works.
const baseUrl = base.endsWith('/') ? base : `${base}/`;

let failures = 0;
const ok = (step) => console.log(`ok - ${step}`);
const notOk = (step, why) => {
  failures += 1;
  console.log(`not ok - ${step}: ${why}`);
};

/** One request with a deadline; resolves to {status, body} (body parsed when JSON) or rejects on no answer. */
async function request(method, path, { token, apiKey, body } = {}) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (apiKey) headers['x-api-key'] = apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(new URL(path, baseUrl), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, contentType: response.headers.get('content-type') || '' };
}

/**
 * Why a request failed, without echoing what was sent: the status and the
 * project's error code and message ({"error": {"code", "message"}}), cut short.
 */
function why(res) {
  const error = res.json && typeof res.json === 'object' ? res.json.error : undefined;
  const detail = error && typeof error === 'object' ? `${error.code}: ${String(error.message).slice(0, 200)}` : res.contentType || 'no JSON body';
  return `${res.status} ${detail}`;
}

/** Why a request got no answer: its deadline, or the network error (ECONNREFUSED, ENOTFOUND, …). */
function problem(error) {
  if (error && error.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS} ms`;
  const cause = error && error.cause;
  return `request failed: ${cause ? cause.code || cause.message : error && error.message}`;
}

/** Polls GET /health/ready until 200; true when it came in time. */
async function waitUntilReady() {
  const deadline = Date.now() + READY_SECONDS * 1000;
  let last = 'no answer';
  for (;;) {
    try {
      const res = await request('GET', 'health/ready');
      if (res.status === 200) {
        ok('ready');
        return true;
      }
      const down = res.json && Array.isArray(res.json.down) ? ` (down: ${res.json.down.join(', ')})` : '';
      last = `${res.status}${down}`;
    } catch (error) {
      last = problem(error);
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      notOk('ready', `not ready within ${READY_SECONDS} s: ${last}`);
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(READY_POLL_MS, remaining)));
  }
}

/** A page of data as docs/data.md shows it: rows and the pagination object. */
const isPage = (page) => Boolean(page && Array.isArray(page.data) && page.data.length > 0 && page.pagination && typeof page.pagination === 'object');

/** Runs one step; returns what `check` returns, or undefined after printing why it failed. */
async function step(name, send, check) {
  try {
    const res = await send();
    const result = check(res);
    if (result === undefined) {
      notOk(name, why(res));
      return undefined;
    }
    ok(name);
    return result;
  } catch (error) {
    notOk(name, problem(error));
    return undefined;
  }
}

async function main() {
  if (!(await waitUntilReady())) return;

  const email = `smoke-test-${Date.now()}-${randomBytes(4).toString('hex')}@example.org`;
  const password = randomBytes(18).toString('base64url');
  const session = await step(
    'register account',
    () => request('POST', 'api/auth/register', { body: { email, password } }),
    (res) => (res.status === 201 && res.json && typeof res.json.token === 'string' ? res.json.token : undefined),
  );
  if (!session) return;

  let app;
  try {
    app = await step(
      'create app',
      () =>
        request('POST', 'api/apps', {
          token: session,
          body: { name: 'smoke test', description: 'made and deleted by deploy/docker/smoke-test.cjs', scopes: ['hr:read'] },
        }),
      (res) => (res.status === 201 && res.json && typeof res.json.id === 'string' && typeof res.json.apiKey === 'string' ? res.json : undefined),
    );
    if (app) {
      await step(
        'data page with api key',
        () => request('GET', 'playground/data/hr/departments?page_size=5', { apiKey: app.apiKey }),
        (res) => (res.status === 200 && /^application\/json/.test(res.contentType) && isPage(res.json) ? true : undefined),
      );
    }
  } finally {
    // Clean up whatever was made, whichever step failed.
    if (app) {
      await step(
        'delete app',
        () => request('DELETE', `api/apps/${encodeURIComponent(app.id)}`, { token: session }),
        (res) => (res.status === 200 ? true : undefined),
      );
    } else {
      // The create may have succeeded without its answer arriving: delete
      // whatever the (fresh) account holds.
      await step(
        'delete any app of the account',
        () => request('POST', 'api/me/reset', { token: session }),
        (res) => (res.status === 200 ? true : undefined),
      );
    }
    await step(
      'sign out',
      () => request('POST', 'api/auth/logout', { token: session }),
      (res) => (res.status === 200 ? true : undefined),
    );
    console.log(`# account ${email} stays: the API cannot delete accounts`);
  }
}

main()
  .catch((error) => notOk('smoke test', problem(error)))
  .finally(() => {
    console.log(failures === 0 ? '# all passed' : `# ${failures} failed`);
    process.exitCode = failures === 0 ? 0 : 1;
  });
