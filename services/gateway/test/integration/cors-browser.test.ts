import type { Browser, BrowserContext, Page } from 'playwright-core';
import { rawRequest, startSystem, type RawResponse, type RunningSystem } from '@sandbox/testing';
import { fetchFromPage, launchChromium, servePageOrigin, type FetchInit, type FetchOutcome, type PageOrigin } from '../../../../test/support/browser';

// Launching Chromium and starting five processes take seconds on a busy 2-core machine.
jest.setTimeout(180_000);

/**
 * The CORS lab proven in a real browser: headless Chromium loads a page from
 * one loopback origin and calls the gateway on another port. Each request a
 * learner could make fails or passes as the browser decides; the preflight
 * and simple answers are also read through Node, where CORS headers are
 * visible, and GET /playground/cors/info must name the failing check (the
 * prediction a learner asks for before trying). Every failing case has a
 * passing twin that differs only in what it steers, so a TypeError can only
 * come from that check.
 */

let system: RunningSystem | undefined;
let browser: Browser | undefined;
let pageOrigin: PageOrigin | undefined;
let context: BrowserContext | undefined;
let page: Page;

const gateway = () => system!.baseUrl;
const origin = () => pageOrigin!.origin;

beforeAll(async () => {
  // Assigned as each one starts, so afterAll stops whatever did start when another fails.
  await Promise.all([
    startSystem({}, 120_000).then((s) => (system = s)),
    launchChromium().then((b) => (browser = b)),
    servePageOrigin().then((o) => (pageOrigin = o)),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await pageOrigin?.close();
  await system?.stop();
});

// A fresh context per test: Chromium caches passing preflights (Access-Control-Max-Age)
// per context, so no test can ride on another's preflight.
beforeEach(async () => {
  context = await browser!.newContext();
  context.setDefaultTimeout(60_000);
  page = await context.newPage();
  await page.goto(`${origin()}/`);
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});

const inBrowser = (path: string, init: FetchInit = {}) => fetchFromPage(page, `${gateway()}${path}`, init);

/** The preflight Chromium sends for a request, sent from Node so its answer's headers can be read. */
const preflightFromNode = (path: string, method: string, headers: string[] = []) =>
  rawRequest(`${gateway()}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin(),
      'Access-Control-Request-Method': method,
      ...(headers.length ? { 'Access-Control-Request-Headers': headers.join(',') } : {}),
    },
  });

/**
 * What GET /playground/cors/info predicts for an intended request, asked with
 * the page's Origin and the same steering parameters plus `method`, `headers`
 * (and `credentials=include` for a credentialed request). Asked from Node,
 * since an info answer steered to refuse the page would be unreadable there.
 *
 * Of its answer, `check` says which check the browser makes ('simple' or
 * 'preflight' here) and `failing` lists the checks that would fail, out of
 * 'origin', 'credentials', 'method', 'headers' (empty when the browser allows it).
 */
async function infoPredicts(steering: string, intended: { method: string; headers?: string[]; credentials?: boolean }) {
  const query = new URLSearchParams(steering);
  query.set('method', intended.method);
  if (intended.headers?.length) query.set('headers', intended.headers.join(','));
  if (intended.credentials) query.set('credentials', 'include');
  const answer = await rawRequest(`${gateway()}/playground/cors/info?${query}`, { headers: { Origin: origin() } });
  expect({ status: answer.status, body: answer.body.slice(0, 300) }).toEqual({ status: 200, body: expect.any(String) });
  const info = answer.json<{ check: string; failing: string[] }>();
  return { check: info.check, failing: info.failing };
}

function expectAnswer(outcome: FetchOutcome, status: number): { cors: string; origin: string | null; received?: unknown } {
  expect(outcome).toMatchObject({ kind: 'answer', status });
  return JSON.parse((outcome as Extract<FetchOutcome, { kind: 'answer' }>).body);
}

function expectTypeError(outcome: FetchOutcome) {
  expect(outcome).toMatchObject({ kind: 'error', name: 'TypeError' });
}

const header = (answer: RawResponse, name: string) => answer.headers[name.toLowerCase()];
const listOf = (value: string | string[] | undefined) =>
  String(value ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);

const JSON_BODY = JSON.stringify({ hello: 'browser' });
/** Content-Type application/json and a custom header: either one alone makes Chromium send a preflight. */
const JSON_WITH_CUSTOM: FetchInit = { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Custom': 'lab' }, body: JSON_BODY };
const JSON_HEADERS = ['content-type', 'x-custom'];

describe('the CORS lab from a page on another origin, in headless Chromium', () => {
  it('when the page sends a simple GET, then it reads the answer, which allows exactly its origin', async () => {
    const outcome = await inBrowser('/playground/cors/simple');
    const body = expectAnswer(outcome, 200);
    expect(body).toMatchObject({ cors: 'simple', origin: origin() });
    // Exposed by the lab, so the page can read it.
    expect(outcome).toMatchObject({ requestId: expect.stringMatching(/\S/) });

    const fromNode = await rawRequest(`${gateway()}/playground/cors/simple`, { headers: { Origin: origin() } });
    expect(fromNode.status).toBe(200);
    expect(header(fromNode, 'Access-Control-Allow-Origin')).toBe(origin());
    expect(listOf(header(fromNode, 'Vary'))).toContain('origin');
    expect(header(fromNode, 'Access-Control-Allow-Credentials')).toBeUndefined();

    expect(await infoPredicts('', { method: 'GET' })).toEqual({ check: 'simple', failing: [] });
  });

  it('when the page POSTs JSON with a custom header, then the preflight passes and the POST arrives', async () => {
    const body = expectAnswer(await inBrowser('/playground/cors/preflight', JSON_WITH_CUSTOM), 200);
    expect(body).toMatchObject({ cors: 'preflighted', origin: origin(), received: { hello: 'browser' } });

    const preflight = await preflightFromNode('/playground/cors/preflight', 'POST', JSON_HEADERS);
    expect(preflight.status).toBe(204);
    expect(header(preflight, 'Access-Control-Allow-Origin')).toBe(origin());
    expect(listOf(header(preflight, 'Access-Control-Allow-Methods'))).toContain('post');
    expect(listOf(header(preflight, 'Access-Control-Allow-Headers'))).toEqual(expect.arrayContaining(JSON_HEADERS));
    expect(header(preflight, 'X-CORS-Verdict')).toMatch(/^allowed/);

    expect(await infoPredicts('', { method: 'POST', headers: JSON_HEADERS })).toEqual({ check: 'preflight', failing: [] });
  });

  describe('credentials', () => {
    it('when allow_credentials=true, then a credentialed GET is read, and the answer allows credentials for the page origin', async () => {
      const body = expectAnswer(await inBrowser('/playground/cors/simple?allow_credentials=true', { credentials: 'include' }), 200);
      expect(body).toMatchObject({ cors: 'simple', origin: origin() });

      const fromNode = await rawRequest(`${gateway()}/playground/cors/simple?allow_credentials=true`, { headers: { Origin: origin() } });
      expect(header(fromNode, 'Access-Control-Allow-Credentials')).toBe('true');
      expect(header(fromNode, 'Access-Control-Allow-Origin')).toBe(origin());

      expect(await infoPredicts('allow_credentials=true', { method: 'GET', credentials: true })).toEqual({ check: 'simple', failing: [] });
    });

    it('when allow_credentials is missing, then a credentialed GET fails with a TypeError (the same GET without credentials is read), and info names credentials', async () => {
      expectTypeError(await inBrowser('/playground/cors/simple', { credentials: 'include' }));
      expectAnswer(await inBrowser('/playground/cors/simple', { credentials: 'omit' }), 200);

      const fromNode = await rawRequest(`${gateway()}/playground/cors/simple`, { headers: { Origin: origin() } });
      expect(header(fromNode, 'Access-Control-Allow-Credentials')).toBeUndefined();

      expect(await infoPredicts('', { method: 'GET', credentials: true })).toEqual({ check: 'simple', failing: ['credentials'] });
    });
  });

  describe('a preflight steered to fail', () => {
    // Each row: the steering that makes the browser refuse, the request, and its passing twin.
    const cases: {
      check: 'origin' | 'method' | 'headers' | 'credentials';
      steering: string;
      request: FetchInit;
      passing: { steering: string; request: FetchInit; status: number };
      preflightShows: (preflight: RawResponse) => void;
    }[] = [
      {
        check: 'origin',
        steering: 'allow_origin=https://elsewhere.example',
        request: JSON_WITH_CUSTOM,
        passing: { steering: '', request: JSON_WITH_CUSTOM, status: 200 },
        preflightShows: (preflight) => {
          expect(header(preflight, 'Access-Control-Allow-Origin')).toBe('https://elsewhere.example');
          expect(header(preflight, 'X-CORS-Verdict')).toMatch(/^refused: .*origin/);
        },
      },
      {
        // PUT, not POST: a CORS-safelisted method (GET, HEAD, POST) passes whatever Access-Control-Allow-Methods says.
        check: 'method',
        steering: 'allow_methods=GET',
        request: { ...JSON_WITH_CUSTOM, method: 'PUT' },
        // The path serves POST only: past a passing preflight, the browser reads the 405.
        passing: { steering: '', request: { ...JSON_WITH_CUSTOM, method: 'PUT' }, status: 405 },
        preflightShows: (preflight) => {
          expect(listOf(header(preflight, 'Access-Control-Allow-Methods'))).toEqual(['get']);
          expect(header(preflight, 'X-CORS-Verdict')).toMatch(/^refused: .*method PUT/);
        },
      },
      {
        check: 'headers',
        steering: 'allow_headers=x-other',
        request: JSON_WITH_CUSTOM,
        passing: { steering: 'allow_headers=content-type,x-custom', request: JSON_WITH_CUSTOM, status: 200 },
        preflightShows: (preflight) => {
          expect(listOf(header(preflight, 'Access-Control-Allow-Headers'))).toEqual(['x-other']);
          expect(header(preflight, 'X-CORS-Verdict')).toMatch(/^refused: .*x-custom/);
        },
      },
      {
        check: 'credentials',
        steering: '',
        request: { ...JSON_WITH_CUSTOM, credentials: 'include' },
        passing: { steering: 'allow_credentials=true', request: { ...JSON_WITH_CUSTOM, credentials: 'include' }, status: 200 },
        preflightShows: (preflight) => {
          expect(header(preflight, 'Access-Control-Allow-Origin')).toBe(origin());
          expect(header(preflight, 'Access-Control-Allow-Credentials')).toBeUndefined();
        },
      },
    ];

    it.each(cases)('when steered by the $check check, then the page sees a TypeError, its twin passes, and info names $check', async (row) => {
      const url = (steering: string) => `/playground/cors/preflight${steering ? `?${steering}` : ''}`;
      const method = row.request.method ?? 'GET';
      const headers = Object.keys(row.request.headers ?? {}).map((h) => h.toLowerCase());

      expectTypeError(await inBrowser(url(row.steering), row.request));
      expectAnswer(await inBrowser(url(row.passing.steering), row.passing.request), row.passing.status);

      row.preflightShows(await preflightFromNode(url(row.steering), method, headers));

      // info is stateless, so asking it last predicts the same as asking first.
      const predicted = await infoPredicts(row.steering, { method, headers, credentials: row.request.credentials === 'include' });
      expect(predicted).toEqual({ check: 'preflight', failing: [row.check] });
    });

    it('when allow_origin names another origin, then a simple GET fails with a TypeError too: the check is made on the answer itself', async () => {
      expectTypeError(await inBrowser('/playground/cors/simple?allow_origin=https://elsewhere.example'));
      expect(await infoPredicts('allow_origin=https://elsewhere.example', { method: 'GET' })).toEqual({ check: 'simple', failing: ['origin'] });
    });

    it('when allow_methods leaves out POST, then a preflighted POST still passes: POST is a CORS-safelisted method, and info agrees', async () => {
      expectAnswer(await inBrowser('/playground/cors/preflight?allow_methods=GET', JSON_WITH_CUSTOM), 200);
      expect(await infoPredicts('allow_methods=GET', { method: 'POST', headers: JSON_HEADERS })).toEqual({ check: 'preflight', failing: [] });
    });
  });

  describe('max_age', () => {
    it('when max_age is given, then the preflight answer carries it as Access-Control-Max-Age and the browser still passes it', async () => {
      const preflight = await preflightFromNode('/playground/cors/preflight?max_age=42', 'POST', JSON_HEADERS);
      expect(preflight.status).toBe(204);
      expect(header(preflight, 'Access-Control-Max-Age')).toBe('42');
      expectAnswer(await inBrowser('/playground/cors/preflight?max_age=42', JSON_WITH_CUSTOM), 200);
    });

    it('when max_age is out of its range or not a whole number, then the preflight is refused with the words the GET uses, and the browser fails it', async () => {
      for (const value of ['999999', '86401', 'abc', '-3']) {
        const path = `/playground/cors/preflight?max_age=${value}`;
        const preflight = await preflightFromNode(path, 'POST', JSON_HEADERS);
        const info = await rawRequest(`${gateway()}/playground/cors/info?max_age=${value}`, { headers: { Origin: origin() } });
        expect({ value, status: preflight.status, max: header(preflight, 'Access-Control-Max-Age') }).toEqual({ value, status: 400, max: undefined });
        expect({ value, preflight: preflight.json().error, info: info.status }).toEqual({
          value,
          preflight: { ...info.json().error, requestId: preflight.json().error.requestId },
          info: 400,
        });
        expect(header(preflight, 'X-CORS-Verdict')).toBe(`refused: ${info.json().error.message}`);
      }
      expectTypeError(await inBrowser('/playground/cors/preflight?max_age=999999', JSON_WITH_CUSTOM));
      const absent = await preflightFromNode('/playground/cors/preflight', 'POST', JSON_HEADERS);
      expect(header(absent, 'Access-Control-Max-Age')).toBe('600');
    });
  });
});
