import { execFile } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { apiRequest, createApp, eventually, registerUser, runPythonScript, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';
import { fetchFromPage, launchChromium, servePageOrigin } from '../../../../test/support/browser';

jest.setTimeout(120_000);
const run = promisify(execFile);

/** The HMAC scheme's three headers (docs/auth-playground.md), computed with node:crypto as a learner's client would. */
function hmacHeaders(appId: string, apiKey: string, path: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', apiKey).update(`${timestamp}.GET.${path}`).digest('hex');
  return { 'x-app-id': appId, 'x-timestamp': timestamp, 'x-signature': signature };
}
const REDIRECT = 'http://127.0.0.1:9/callback';

interface ExerciseJson {
  id: string;
  status: 'not_started' | 'attempted' | 'done';
  hint?: string;
  doneWithApp?: string;
}

/*
 * Exercises decided by the sandbox from the requests a learner's own apps
 * make (docs/exercises.md), through the whole system: the gateway records
 * each request with its facts, identity judges the batch it is sent (about
 * once a second), and GET /api/exercises shows the result. The requests are
 * made by clients that are not ours: curl, Node's fetch, Python's
 * requests-oauthlib.
 */
describe('exercises', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(async () => system?.stop());

  /** A learner with one app that may use the OAuth flows. */
  async function learner(): Promise<{ session: string; app: CreatedApp }> {
    const session = await registerUser(system.baseUrl);
    const app = await createApp(system.baseUrl, session, { name: 'Practice app', scopes: ['hr:read', 'stocks:read'] });
    const uris = await apiRequest(system.baseUrl, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [REDIRECT] } });
    expect(uris.status).toBe(200);
    return { session, app };
  }
  const exercises = async (session: string): Promise<Record<string, ExerciseJson>> => {
    const res = await apiRequest(system.baseUrl, 'GET', '/api/exercises', { token: session });
    expect(res.status).toBe(200);
    return Object.fromEntries((res.json().exercises as ExerciseJson[]).map((e) => [e.id, e]));
  };
  /** Identity judges what the gateways flush about once a second: a margin that holds on a busy machine. */
  const until = (session: string, accept: (states: Record<string, ExerciseJson>) => boolean) =>
    eventually(() => exercises(session), accept, 30_000, 200).then((r) => r.value);
  const curl = async (...args: string[]) => (await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', ...args])).stdout;

  it('when a learner is refused at /playground/auth/basic with curl, then the exercise shows attempted with a hint naming the rule; fixed with fetch, it is done with that app', async () => {
    const { session, app } = await learner();
    expect(Object.values(await exercises(session)).every((e) => e.status === 'not_started')).toBe(true);

    expect(await curl('-u', `${app.appId}:as_not-the-secret`, `${system.baseUrl}/playground/auth/basic`)).toBe('401');
    const refused = await until(session, (s) => s['auth-basic'].status === 'attempted');
    expect(refused['auth-basic'].hint).toMatch(/401/);
    expect(refused['auth-basic'].hint).not.toContain(app.appSecret);

    const ok = await fetch(`${system.baseUrl}/playground/auth/basic`, {
      headers: { Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}` },
    });
    expect(ok.status).toBe(200);
    const done = await until(session, (s) => s['auth-basic'].status === 'done');
    expect(done['auth-basic']).toMatchObject({ status: 'done', doneWithApp: 'Practice app' });
    expect(done['auth-basic'].hint).toBeUndefined();
    // A 401 read and fixed at the same endpoint.
    expect(done['start-401-fixed'].status).toBe('done');
    // Nothing else was shown.
    expect(done['auth-bearer'].status).toBe('not_started');
  });

  it('when a learner runs the OAuth flows with requests-oauthlib, then OAuth 1.0a, client credentials and the code with PKCE are done', async () => {
    const { session, app } = await learner();
    const flows = await runPythonScript<{ authorization_code: { rotated_twice: boolean } }>('oauth_flows.py', [
      system.baseUrl,
      app.appId,
      app.appSecret,
      app.apiKey,
      REDIRECT,
    ]);
    expect(flows.authorization_code.rotated_twice).toBe(true);
    const done = ['auth-oauth1', 'auth-oauth2-client-credentials', 'auth-oauth2-pkce', 'auth-oauth2-refresh'];
    const states = await until(session, (s) => done.every((id) => s[id].status === 'done'));
    expect(states['auth-oauth2-client-credentials'].doneWithApp).toBe('Practice app');

    // A refresh with a token that is not one is refused, and the rotation is only attempted, with the rule.
    const other = await learner();
    const form = ['-d', 'grant_type=refresh_token', '-d', 'refresh_token=rt_not-a-refresh-token'];
    expect(await curl('-u', `${other.app.appId}:${other.app.appSecret}`, ...form, `${system.baseUrl}/oauth/token`)).toBe('400');
    const refused = await until(other.session, (s) => s['auth-oauth2-refresh'].status === 'attempted');
    expect(refused['auth-oauth2-refresh'].hint).toMatch(/invalid_grant/);
  });

  it('when a learner uses each remaining auth style with curl, fetch and Python requests, then each is done; a refused try with a key that names no app does not count, one that names the app is an attempt', async () => {
    const { session, app } = await learner();
    const wrong = await learner();
    // Keys that name nobody: refused, and nothing is recorded for anyone.
    expect(await curl('-H', 'Authorization: Bearer bt_not-a-real-token', `${system.baseUrl}/playground/auth/bearer`)).toBe('401');
    expect(await curl('-H', 'x-api-key: ak_not-a-real-key', `${system.baseUrl}/playground/auth/api-key`)).toBe('401');
    // Signed with the wrong key, or the wrong password: refused, and the app's id in the request makes it an attempt.
    expect(
      (await fetch(`${system.baseUrl}/playground/auth/hmac`, { headers: hmacHeaders(wrong.app.appId, 'ak_not-the-key', '/playground/auth/hmac') })).status,
    ).toBe(401);
    expect(await curl('--digest', '-u', `${wrong.app.appId}:ak_not-the-key`, `${system.baseUrl}/playground/auth/digest`)).toBe('401');
    const attempted = await until(wrong.session, (s) => s['auth-hmac'].status === 'attempted' && s['auth-digest'].status === 'attempted');
    expect(attempted['auth-hmac'].hint).toMatch(/signature/i);
    expect(attempted['auth-bearer'].status).toBe('not_started');
    expect(attempted['auth-api-key-header'].status).toBe('not_started');

    expect(await curl('-H', `Authorization: Bearer ${app.bearerToken}`, `${system.baseUrl}/playground/auth/bearer`)).toBe('200');
    expect(await curl('-H', `x-api-key: ${app.apiKey}`, `${system.baseUrl}/playground/auth/api-key`)).toBe('200');
    expect((await fetch(`${system.baseUrl}/playground/auth/api-key-query?api_key=${app.apiKey}`)).status).toBe(200);
    expect((await fetch(`${system.baseUrl}/playground/auth/hmac`, { headers: hmacHeaders(app.appId, app.apiKey, '/playground/auth/hmac') })).status).toBe(200);
    // requests' HTTPDigestAuth answers the challenge itself (auth_styles.py), as do its Basic and PyJWT.
    await runPythonScript('auth_styles.py', [system.baseUrl, app.appId, app.appSecret, app.apiKey]);
    const styles = ['auth-bearer', 'auth-api-key-header', 'auth-api-key-query', 'auth-hmac', 'auth-digest'];
    await until(session, (s) => styles.every((id) => s[id].status === 'done'));
  });

  it('when a learner reads a pack without its scope, then the scope exercise is attempted; with the scope added in the portal, the read completes it', async () => {
    const { session, app } = await learner();
    expect(await curl('-H', `x-api-key: ${app.apiKey}`, `${system.baseUrl}/playground/data/fpa/actuals`)).toBe('403');
    const refused = await until(session, (s) => s['start-403-scope'].status === 'attempted');
    expect(refused['start-403-scope'].hint).toMatch(/fpa:read/);
    const scoped = await apiRequest(system.baseUrl, 'PUT', `/api/apps/${app.id}/scopes`, {
      token: session,
      body: { scopes: ['hr:read', 'stocks:read', 'fpa:read'] },
    });
    expect(scoped.status).toBe(200);
    expect(await curl('-H', `x-api-key: ${app.apiKey}`, `${system.baseUrl}/playground/data/fpa/actuals`)).toBe('200');
    await until(session, (s) => s['start-403-scope'].status === 'done');
  });

  it.each(['page', 'offset', 'token', 'link'])(
    'when Python requests reads one page in the %s style, then that paging exercise is attempted; to the end, it is done',
    async (style) => {
      const { session, app } = await learner();
      const walk = (maxRequests: string) =>
        runPythonScript<{ total: number; requests: number }>('page_through.py', [
          `${system.baseUrl}/playground/data/hr/employees`,
          app.apiKey,
          style,
          'query',
          maxRequests,
        ]);
      expect((await walk('1')).requests).toBe(1);
      const first = await until(session, (s) => s[`paging-${style}`].status === 'attempted');
      expect(first[`paging-${style}`].hint).toMatch(/last page|next/i);
      expect((await walk('10000')).total).toBe(2173);
      await until(session, (s) => s[`paging-${style}`].status === 'done');
    },
  );

  it('when a learner sends the playground JWTs with fetch, then each algorithm completes its own exercise', async () => {
    const { session, app } = await learner();
    const issue = await fetch(`${system.baseUrl}/playground/auth/jwt/issue`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}` },
    });
    const issued = (await issue.json()) as { hs256: string; rs256: string };
    expect((await fetch(`${system.baseUrl}/playground/auth/jwt`, { headers: { Authorization: `Bearer ${issued.hs256}` } })).status).toBe(200);
    const first = await until(session, (s) => s['auth-jwt-hs256'].status === 'done');
    expect(first['auth-jwt-rs256'].status).toBe('not_started');
    expect((await fetch(`${system.baseUrl}/playground/auth/jwt`, { headers: { Authorization: `Bearer ${issued.rs256}` } })).status).toBe(200);
    await until(session, (s) => s['auth-jwt-rs256'].status === 'done');
  });

  it('when a token request is refused, then client credentials is attempted, not done, and the hint names the rule', async () => {
    const { session, app } = await learner();
    expect(await curl('-u', `${app.appId}:as_not-the-secret`, '-d', 'grant_type=client_credentials', `${system.baseUrl}/oauth/token`)).toBe('401');
    const states = await until(session, (s) => s['auth-oauth2-client-credentials'].status === 'attempted');
    expect(states['auth-oauth2-client-credentials'].hint).toMatch(/invalid_client/);
  });

  it('when a learner pages hr/employees (2,173 rows) to the end with Python requests by cursor, then that paging exercise is done; a first page alone with curl is attempted only', async () => {
    const { session, app } = await learner();
    const walk = await runPythonScript<{ total: number; requests: number }>('page_through.py', [
      `${system.baseUrl}/playground/data/hr/employees`,
      app.apiKey,
      'cursor',
      'header',
    ]);
    expect(walk.total).toBe(2173);
    const states = await until(session, (s) => s['paging-cursor'].status === 'done');
    expect(states['paging-offset'].status).toBe('not_started');
    expect(states['start-first-page'].status).toBe('done');

    const other = await learner();
    expect(await curl('-H', `x-api-key: ${other.app.apiKey}`, `${system.baseUrl}/playground/data/hr/employees?offset=0&limit=100`)).toBe('200');
    const first = await until(other.session, (s) => s['paging-offset'].status === 'attempted');
    expect(first['paging-offset'].hint).toMatch(/last page|next/i);
  });

  it('when a learner sends a batch naming their app by its API key (curl), then the batch exercise is done; a malformed batch first is an attempt with the rule', async () => {
    const { session, app } = await learner();
    const batch = (body: string) =>
      curl('-H', `x-api-key: ${app.apiKey}`, '-H', 'Content-Type: application/json', '-d', body, `${system.baseUrl}/playground/batch`);
    expect(await batch('{"requests": "not a list"}')).toBe('400');
    const refused = await until(session, (s) => s['http-batch'].status === 'attempted');
    expect(refused['http-batch'].hint).toMatch(/400.*requests must be an array/);
    expect(await batch('{"requests": [{"method": "GET", "path": "/health"}, {"method": "POST", "path": "/playground/echo", "body": {"n": 1}}]}')).toBe('200');
    await until(session, (s) => s['http-batch'].status === 'done');
  });

  it('when curl follows a 302 chain with a POST, then the redirect exercise is attempted (the POST became a GET); a 307 chain keeps the POST and completes it', async () => {
    const { session, app } = await learner();
    const chain = (status: number) => curl('-L', '-H', `x-api-key: ${app.apiKey}`, '-d', 'hello', `${system.baseUrl}/playground/redirect?n=3&status=${status}`);
    expect(await chain(302)).toBe('200');
    const turned = await until(session, (s) => s['http-redirect-307'].status === 'attempted');
    expect(turned['http-redirect-307'].hint).toMatch(/status=307|GET/);
    expect(await chain(307)).toBe('200');
    await until(session, (s) => s['http-redirect-307'].status === 'done');
  });

  it('when curl waits out a short delay, then the timeout exercise is attempted; with --max-time shorter than the delay it gives up first and completes it', async () => {
    const { session, app } = await learner();
    expect(await curl('-H', `x-api-key: ${app.apiKey}`, `${system.baseUrl}/playground/timeout?delay=50`)).toBe('200');
    const waited = await until(session, (s) => s['http-timeout'].status === 'attempted');
    expect(waited['http-timeout'].hint).toMatch(/waited the whole delay of 50 ms/);
    // curl exits 28 when its own timeout ends the transfer: the gateway sees the client close before the 30 s delay.
    await expect(curl('--max-time', '1', '-H', `x-api-key: ${app.apiKey}`, `${system.baseUrl}/playground/timeout?delay=30000`)).rejects.toMatchObject({
      code: 28,
    });
    await until(session, (s) => s['http-timeout'].status === 'done');
  });

  it('when curl uploads a file with a SHA-256 field that is not its hash, then the upload exercise is attempted; with the hash computed here, it is done', async () => {
    const { session, app } = await learner();
    const file = join(tmpdir(), `exercise-upload-${process.pid}.txt`);
    writeFileSync(file, 'rows,to,upload\n1,2,3\n');
    const upload = (sha256: string) =>
      curl('-H', `x-api-key: ${app.apiKey}`, '-F', `file=@${file}`, '-F', `sha256=${sha256}`, `${system.baseUrl}/playground/upload`);
    expect(await upload('0'.repeat(64))).toBe('200');
    const differed = await until(session, (s) => s['http-upload-sha256'].status === 'attempted');
    expect(differed['http-upload-sha256'].hint).toMatch(/differs/);
    expect(await upload(createHash('sha256').update('rows,to,upload\n1,2,3\n').digest('hex'))).toBe('200');
    await until(session, (s) => s['http-upload-sha256'].status === 'done');
  });

  it('when curl retries a 503 at once, then the Retry-After exercise is attempted with how soon; Python requests with urllib3 Retry waits it out and completes it', async () => {
    const { session, app } = await learner();
    const refuse = () => curl('-H', `x-api-key: ${app.apiKey}`, `${system.baseUrl}/playground/response?status=503&retry_after=30`);
    expect(await refuse()).toBe('503');
    expect(await refuse()).toBe('503');
    const soon = await until(session, (s) => /after the refusal/.test(s['http-retry-after'].hint ?? ''));
    expect(soon['http-retry-after']).toMatchObject({ status: 'attempted', hint: expect.stringMatching(/Retry-After asked for 30 s/) });

    // Another learner, so that no earlier refusal of this one can be what the retry is measured from.
    const other = await learner();
    const walked = await runPythonScript<{ status: number; retry_after: string; retries: number; seconds: number }>('retry_after.py', [
      `${system.baseUrl}/playground/response?status=503&retry_after=1`,
      other.app.apiKey,
    ]);
    expect(walked).toMatchObject({ status: 503, retry_after: '1', retries: 1 });
    expect(walked.seconds).toBeGreaterThanOrEqual(1);
    await until(other.session, (s) => s['http-retry-after'].status === 'done');
  });

  it("when Chromium on another origin POSTs JSON to the CORS lab with the key in the query, then the preflight is the app's and the exercise is done; the POST alone from curl is attempted", async () => {
    const { session, app } = await learner();
    expect(await curl('-H', 'Content-Type: application/json', '-d', '{"a":1}', `${system.baseUrl}/playground/cors/preflight?api_key=${app.apiKey}`)).toBe(
      '200',
    );
    const alone = await until(session, (s) => s['http-cors-preflight'].status === 'attempted');
    expect(alone['http-cors-preflight'].hint).toMatch(/without a preflight/);

    const [browser, origin] = await Promise.all([launchChromium(), servePageOrigin()]);
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${origin.origin}/`);
      const outcome = await fetchFromPage(page, `${system.baseUrl}/playground/cors/preflight?api_key=${app.apiKey}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"from":"a page"}',
      });
      expect(outcome).toMatchObject({ kind: 'answer', status: 200 });
    } finally {
      await browser.close();
      await origin.close();
    }
    await until(session, (s) => s['http-cors-preflight'].status === 'done');
  });

  it('when an HTTP-practice request names no app, or a key that is not one, then it is answered as before, never refused for it', async () => {
    const empty = ['-d', '{"requests": []}', '-H', 'Content-Type: application/json', `${system.baseUrl}/playground/batch`];
    expect(await curl(...empty)).toBe('200');
    expect(await curl('-H', 'x-api-key: ak_not-a-real-key', ...empty)).toBe('200');
    expect(await curl('-H', 'Authorization: Bearer bt_not-a-real-token', ...empty)).toBe('200');
  });

  it('when nobody is signed in, then the exercises are not shown', async () => {
    expect((await apiRequest(system.baseUrl, 'GET', '/api/exercises')).status).toBe(401);
  });
});
