import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  apiRequest,
  eventually,
  isolatedMongoUrl,
  pythonClient,
  rawRequest,
  requireStoreUrls,
  startPrefixProxy,
  startSystem,
  type PrefixProxy,
  type RunningSystem,
} from '@sandbox/testing';
import { launchChromium } from '../../../../test/support/browser';
import { expectAccessible, expectKeyboardReachesEverything, openPage as openPageIn } from './portal-checks';
import { AUTH_STYLES, authSnippet, PAGINATION_STYLES, paginationSnippet, type SnippetInput } from '../../portal/src/snippets';

// Five processes, a browser and a few dozen page actions on a busy 2-core machine.
jest.setTimeout(150_000);

/*
 * The portal proven in a real browser (headless Chromium) against the whole
 * system with real stores: a learner signs up, creates an app, reads its
 * credentials once, runs the page's own snippets, watches their requests
 * arrive in the page's log, edits scopes and redirect URIs, rotates, revokes,
 * deletes, resets, signs out, and has an ended session sent back to sign-in.
 *
 * After each step nothing secret may be in localStorage, sessionStorage (but
 * the session token under its one key), cookies or the URL. Each screen is
 * checked with axe-core (no serious or critical violation), walked with the
 * keyboard alone (Tab reaches every control, each with a visible focus ring),
 * screenshotted at 1280x800 and 375x740 (no sideways scrolling), and loaded
 * under the gateway's Content-Security-Policy without a single violation.
 *
 * axe-core is put into the page with page.evaluate (the DevTools protocol),
 * which a page's CSP does not govern, so the CSP stays in force for
 * everything the page itself loads and runs; bypassCSP is never used.
 */

const ROOT = join(__dirname, '..', '..', '..', '..');
const SHOTS = join(ROOT, '.test-output', 'portal');
const SESSION_KEY = 'training-sandbox.portal.session';
const PASSWORD = 'correct horse battery staple';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 740 };

let system: RunningSystem | undefined;
let browser: Browser | undefined;
let proxy: PrefixProxy | undefined;
const gateway = () => system!.baseUrl;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  await Promise.all([
    // PUBLIC_BASE_URL unset and TRUST_PROXY on: the prefix test's proxy says where the page is.
    startSystem({ MONGO_URL: isolatedMongoUrl('portal_page'), REDIS_URL: requireStoreUrls().redisUrl, TRUST_PROXY: 'true' }, 120_000).then((s) => (system = s)),
    launchChromium().then((b) => (browser = b)),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await system?.stop();
});

// ---- helpers -------------------------------------------------------------------

/** A page of this suite's browser that reports CSP violations and page errors (portal-checks.ts). */
const openPage = (viewport = DESKTOP) => openPageIn(browser!, viewport);

/** Nothing secret anywhere the browser keeps things: only the session token, under its one key. */
async function expectNothingStored(page: Page, context: BrowserContext, secrets: readonly string[]) {
  const stored = await page.evaluate(() => ({
    local: Object.fromEntries(Object.entries(localStorage)),
    session: Object.fromEntries(Object.entries(sessionStorage)),
  }));
  expect(stored.local).toEqual({});
  expect(Object.keys(stored.session).filter((key) => key !== SESSION_KEY)).toEqual([]);
  expect(await context.cookies()).toEqual([]);
  const kept = [JSON.stringify(stored), page.url(), JSON.stringify(await context.cookies())].join('\n');
  for (const secret of secrets) expect(kept.includes(secret)).toBe(false);
}

const sessionToken = (page: Page) => page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY);

/** Screenshots at desktop and phone width; at phone width nothing may scroll sideways. */
async function screenshots(page: Page, name: string) {
  // The keyboard pass left a focus ring somewhere; the pictures show the screen at rest.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect({ name, label, overflow }).toEqual({ name, label, overflow: 0 });
    await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

/** A full screen check: accessibility, keyboard, screenshots. */
async function checkScreen(page: Page, name: string) {
  await expectAccessible(page, name);
  await expectKeyboardReachesEverything(page, name);
  await screenshots(page, name);
}

interface Ran {
  code: number | null;
  output: string;
}

function run(file: string, args: string[], timeoutMs = 60_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: process.env.HOME } },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** A snippet exactly as the page shows it, run by the tool it is written for. */
const runSnippet = {
  curl: (code: string) => run('bash', ['-c', code]),
  python: (code: string) => run(pythonClient(), ['-c', code]),
  javascript: (code: string) => run(process.execPath, ['--input-type=module', '-e', code]),
};

/** Rows a pagination snippet reports: "N rows" per page (curl) or in all (Python, JavaScript). */
const rowsOf = (output: string) => [...output.matchAll(/(\d+) rows/g)].reduce((sum, match) => sum + Number(match[1]), 0);

const withKey = (key: string, path = '/playground/data/hr/departments') => apiRequest(gateway(), 'GET', path, { headers: { 'X-API-Key': key } });

// ---- the learner's round -----------------------------------------------------------

describe('the portal page, as a learner uses it', () => {
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const email = `portal-${Date.now().toString(36)}@example.org`;
  /** Every secret the page showed, and the password: none may be kept by the browser. */
  const secrets: string[] = [PASSWORD];
  const app = { id: '', appId: '', appSecret: '', apiKey: '', bearerToken: '' };

  beforeAll(async () => {
    ({ context, page, problems } = await openPage());
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway() });
  });
  afterAll(async () => {
    await context?.close();
  });
  afterEach(async () => {
    // Every step ran under the gateway's CSP without a violation, and leaves nothing secret behind.
    expect(problems).toEqual([]);
    await expectNothingStored(page, context, secrets);
  });

  it('when the page loads, then it is served under the strict CSP and shows sign-in', async () => {
    const response = await page.goto(`${gateway()}/portal/`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response?.headers()['x-content-type-options']).toBe('nosniff');
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await checkScreen(page, 'sign-in');
  });

  it('when the footer is read, then it links the API reference, the guides, the OpenAPI document and the Postman files, each of which answers', async () => {
    const links = page.getByRole('navigation', { name: 'Documentation' }).getByRole('link');
    expect(await links.allTextContents()).toEqual(['API reference', 'Guides', 'OpenAPI document', 'Postman collection', 'Postman environment']);
    for (const href of await links.evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href))) {
      const res = await fetch(href);
      expect({ href, status: res.status }).toEqual({ href, status: 200 });
    }
  });

  it('when a learner signs up with a short password, then the field says why; with a good one, then the app list shows', async () => {
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    const error = page.locator('#password-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Use at least 8 characters.');
    expect(await page.getByLabel('Password').getAttribute('aria-describedby')).toContain('password-error');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your apps' }).waitFor();
    await page.getByText('You have no apps yet.').waitFor();
    await page.getByText(`Signed in as ${email}`).waitFor();
    expect(await sessionToken(page)).toMatch(/^eyJ/);
  });

  it('when an app is created, then its four credentials show once, with copy buttons and a warning', async () => {
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.locator('#app-name-error').waitFor();
    expect(await page.locator('#app-name-error').textContent()).toBe('Give the app a name.');

    await page.getByLabel('Name', { exact: true }).fill('Weather dashboard');
    await page.getByLabel('Description').fill('Practice with the HR pack');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.locator('#revealed-apiKey').waitFor();
    app.id = /#\/apps\/([0-9a-f]{24})$/.exec(page.url())![1];
    app.appId = (await page.locator('#revealed-appId').textContent())!;
    app.appSecret = (await page.locator('#revealed-appSecret').textContent())!;
    app.apiKey = (await page.locator('#revealed-apiKey').textContent())!;
    app.bearerToken = (await page.locator('#revealed-bearerToken').textContent())!;
    expect(app).toEqual({
      id: expect.any(String),
      appId: expect.stringMatching(/^app_[A-Za-z0-9_-]{22}$/),
      appSecret: expect.stringMatching(/^as_[A-Za-z0-9_-]{43}$/),
      apiKey: expect.stringMatching(/^ak_[A-Za-z0-9_-]{43}$/),
      bearerToken: expect.stringMatching(/^bt_[A-Za-z0-9_-]{43}$/),
    });
    secrets.push(app.appSecret, app.apiKey, app.bearerToken);
    await page.getByText('You will not see these values again.').waitFor();

    await page.getByRole('button', { name: 'Copy API key' }).click();
    await page.getByText('API key copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(app.apiKey);
    await page.evaluate(() => navigator.clipboard.writeText(''));

    await checkScreen(page, 'new-app-credentials');
  });

  it("when the learner opens Get started, then the page's curl, Python and JavaScript code works as shown", async () => {
    await page.getByRole('link', { name: /Get started/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Get started with Weather dashboard' }).waitFor();
    expect(await page.locator('#auth-style').inputValue()).toBe('api_key_header');
    const curl = (await page.locator('#auth-curl-code').textContent())!;
    const python = (await page.locator('#auth-python-code').textContent())!;
    const javascript = (await page.locator('#auth-javascript-code').textContent())!;
    for (const code of [curl, python, javascript]) {
      expect(code).toContain(gateway());
      expect(code).toContain(app.apiKey);
    }
    const [byCurl, byPython, byNode] = await Promise.all([runSnippet.curl(curl), runSnippet.python(python), runSnippet.javascript(javascript)]);
    expect({ code: byCurl.code, entity: JSON.parse(byCurl.output).entity }).toEqual({ code: 0, entity: 'departments' });
    for (const ran of [byPython, byNode])
      expect({ code: ran.code, first: ran.output.split('\n')[0], hr: ran.output.includes('"entity": "departments"') }).toEqual({
        code: 0,
        first: '200',
        hr: true,
      });

    // Another pagination style, chosen in the page: its curl code walks all 2,173 employees by page token.
    await page.locator('#page-style').selectOption('token');
    const paging = (await page.locator('#page-curl-code').textContent())!;
    expect(paging).toContain('paginate=token');
    const walked = await runSnippet.curl(paging);
    expect(walked.code).toBe(0);
    expect(rowsOf(walked.output)).toBe(2173);

    await checkScreen(page, 'snippets');
  });

  it("when the test calls the data endpoint with the page's API key, then the request appears in the page's log, refusals with their reason", async () => {
    await page.getByRole('link', { name: '← Back to Weather dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Weather dashboard' }).waitFor();
    await page.getByRole('button', { name: 'I have saved them: hide' }).click();
    expect(await page.locator('#revealed-apiKey').count()).toBe(0);

    // Scopes, edited in the page: without cricket:read, a cricket request is refused (403) and logged with the rule.
    await page.getByLabel(/cricket:read/).uncheck();
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByText('Saved: fpa:read, stocks:read, marketing:read, hr:read.').waitFor();

    const answered = await withKey(app.apiKey);
    expect(answered.status).toBe(200);
    const requestId = answered.headers['x-request-id'] as string;
    const refused = await withKey(app.apiKey, '/playground/data/cricket/teams');
    expect({ status: refused.status, code: refused.json().error.code }).toEqual({ status: 403, code: 'missing_scope' });

    const log = page.locator('ol.log');
    const refusal = log.locator('li.refused', { hasText: '/playground/data/cricket/teams' });
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page
          .getByText(/checked \d/)
          .last()
          .waitFor();
        return (await log.locator('li', { hasText: requestId }).count()) > 0 && (await refusal.count()) > 0;
      },
      (seen) => seen,
      30_000,
      250,
    );
    expect(await refusal.first().locator('.failure').textContent()).toMatch(/^Refused: missing_scope: .*cricket:read/);
    const served = log.locator('li', { hasText: requestId });
    expect(await served.textContent()).toMatch(/^GET \/playground\/data\/hr\/departments 200.*API key \(header\).*ms/);

    // More than a page of entries (the page asks for 20 at a time): older ones come on demand.
    for (let i = 0; i < 20; i++) expect((await withKey(app.apiKey, '/playground/data/hr/headcount')).status).toBe(200);
    const entries = () => log.locator('li').count();
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page
          .getByText(/checked \d/)
          .last()
          .waitFor();
        return page.getByRole('button', { name: 'Show older requests' }).count();
      },
      (shown) => shown > 0,
      30_000,
      250,
    );
    expect(await entries()).toBe(20);
    await page.getByRole('button', { name: 'Show older requests' }).click();
    await eventually(entries, (count) => count > 20, 10_000);
    await page.getByText(/^Showing \d+ of \d+ requests, newest first/).waitFor();
  });

  it('when a redirect URI breaks the rule, then the page says so next to the field; a good one is saved', async () => {
    await page.getByRole('button', { name: 'Add a redirect URI' }).click();
    const field = page.getByLabel('Redirect URI 1');
    await field.fill('http://client.example/callback');
    await page.getByRole('button', { name: 'Save redirect URIs' }).click();
    const error = page.locator('#redirect-0-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/http is allowed only for 127\.0\.0\.1/);
    expect(await field.getAttribute('aria-describedby')).toBe('redirect-0-error');
    expect(await field.getAttribute('aria-invalid')).toBe('true');

    await field.fill('https://client.example/callback');
    await page.getByRole('button', { name: 'Save redirect URIs' }).click();
    await page.getByText('Saved 1 redirect URI.').waitFor();
    const stored = await apiRequest(gateway(), 'GET', `/api/apps/${app.id}`, { token: (await sessionToken(page))! });
    expect(stored.json().redirectUris).toEqual(['https://client.example/callback']);

    // The skip link moves focus past the header without touching the route in the hash.
    const here = page.url();
    await page.getByRole('link', { name: 'Skip to content' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(page.url()).toBe(here);
    await checkScreen(page, 'app-detail');
  });

  it('when the API key is rotated in the page, then the old key is refused and the new one works', async () => {
    await page.getByRole('button', { name: 'Rotate chosen credentials…' }).click();
    await page.locator('#rotate-error').waitFor();
    expect(await page.locator('#rotate-error').textContent()).toBe('Choose at least one credential to rotate.');

    await page.getByRole('checkbox', { name: 'API key' }).check();
    await page.getByRole('button', { name: 'Rotate chosen credentials…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate credentials of “Weather dashboard”?' });
    await dialog.waitFor();
    await expectAccessible(page, 'rotate-dialog');
    await dialog.getByRole('button', { name: 'Rotate API key' }).click();
    await page.locator('#revealed-apiKey').waitFor();
    const newKey = (await page.locator('#revealed-apiKey').textContent())!;
    secrets.push(newKey);
    expect(newKey).toMatch(/^ak_/);
    expect(newKey).not.toBe(app.apiKey);
    expect(await page.locator('#revealed-appSecret').count()).toBe(0); // only what was rotated is shown

    await eventually(
      () => withKey(app.apiKey).then((r) => r.status),
      (status) => status === 401,
      10_000,
    );
    expect((await withKey(newKey)).status).toBe(200);
    app.apiKey = newKey;
  });

  it('when the app is revoked, then the dialog names it, Escape backs out, and after confirming its key is refused', async () => {
    const revoke = page.getByRole('button', { name: 'Revoke this app…' });
    await revoke.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke “Weather dashboard”?' });
    await dialog.waitFor();
    // Focus starts on the safe choice, stays inside the dialog, and Escape closes it with focus back on its button.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke “Weather dashboard”');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke this app…');

    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke “Weather dashboard”' }).click();
    await page.locator('.badge-revoked').first().waitFor();
    await page.getByText(/This app is revoked/).waitFor();
    expect(await page.getByRole('button', { name: 'Rotate chosen credentials…' }).count()).toBe(0);
    await eventually(
      () => withKey(app.apiKey).then((r) => r.status),
      (status) => status === 401,
      10_000,
    );
  });

  it('when the app is deleted, then the list says so and the app is gone', async () => {
    await page.getByRole('button', { name: 'Delete this app…' }).click();
    await page.getByRole('dialog', { name: 'Delete “Weather dashboard” permanently?' }).getByRole('button', { name: 'Delete “Weather dashboard”' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your apps' }).waitFor();
    await page.getByText('Deleted “Weather dashboard”.').waitFor();
    await page.getByText('You have no apps yet.').waitFor();
    const token = (await sessionToken(page))!;
    expect((await apiRequest(gateway(), 'GET', `/api/apps/${app.id}`, { token })).status).toBe(404);
  });

  it('when the learner resets, then every app is deleted after a confirmation', async () => {
    const token = (await sessionToken(page))!;
    for (const name of ['First practice app', 'Second practice app']) {
      const created = await apiRequest(gateway(), 'POST', '/api/apps', { token, body: { name } });
      expect(created.status).toBe(201);
      secrets.push(created.json().appSecret, created.json().apiKey, created.json().bearerToken);
    }
    await page.reload();
    await page.getByText('You have 2 apps.').waitFor();
    await checkScreen(page, 'app-list');

    await page.getByRole('button', { name: 'Delete all my apps…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete all your apps?' });
    await dialog.getByText(/all 2 apps/).waitFor();
    await dialog.getByRole('button', { name: 'Delete all my apps' }).click();
    await page.getByText('Deleted 2 apps. You have no apps now.').waitFor();
    expect((await apiRequest(gateway(), 'GET', '/api/apps', { token })).json()).toEqual({ apps: [] });
  });

  it('when the page is reloaded, then the session is kept; when the learner signs out and in, then the token is replaced', async () => {
    const before = await sessionToken(page);
    await page.reload();
    await page.getByText(`Signed in as ${email}`).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Your apps' }).waitFor();
    expect(await sessionToken(page)).toBe(before);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect(await sessionToken(page)).toBeNull();
    expect((await apiRequest(gateway(), 'GET', '/api/me', { token: before! })).status).toBe(401);

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#form-error').waitFor();
    expect(await page.locator('#form-error').textContent()).toMatch(/email or password/i);

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your apps' }).waitFor();
    expect(await sessionToken(page)).not.toBe(before);
  });

  it('when the session ends elsewhere, then the next action sends the page back to sign-in with a message', async () => {
    // Signed out from another client: the page's token stops working at once.
    const token = (await sessionToken(page))!;
    expect((await apiRequest(gateway(), 'POST', '/api/auth/logout', { token })).status).toBe(200);
    await page.getByLabel('Name', { exact: true }).fill('Too late');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByText('Your session ended; sign in again.').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await sessionToken(page)).toBeNull();

    // A stored token that ended is found out on load too.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your apps' }).waitFor();
    expect((await apiRequest(gateway(), 'POST', '/api/auth/logout', { token: (await sessionToken(page))! })).status).toBe(200);
    await page.reload();
    await page.getByText('Your session ended; sign in again.').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
  });
});

// ---- every snippet -----------------------------------------------------------------

describe('the Get started code', () => {
  // The page shows exactly what snippets.ts generates (the round above runs some of it as the page shows it); here all of it runs.
  const LANGUAGES = ['curl', 'python', 'javascript'] as const;
  let input: SnippetInput;

  beforeAll(async () => {
    const register = await apiRequest(gateway(), 'POST', '/api/auth/register', {
      body: { email: `snippets-${Date.now().toString(36)}@example.org`, password: PASSWORD },
    });
    const created = await apiRequest(gateway(), 'POST', '/api/apps', {
      token: register.json().token,
      body: { name: 'Every snippet', redirectUris: ['http://127.0.0.1:9/callback'] },
    });
    expect(created.status).toBe(201);
    const app = created.json();
    input = { baseUrl: gateway(), app, secrets: { appSecret: app.appSecret, apiKey: app.apiKey, bearerToken: app.bearerToken } };
  });

  /** curl prints the body as it came; Python and JavaScript print the status, then the body indented. */
  const succeeded = (language: (typeof LANGUAGES)[number], ran: Ran) =>
    ran.code === 0 && (language === 'curl' || ran.output.startsWith('200\n')) && /"entity":\s?"departments"|"authenticated":\s?true/.test(ran.output);

  it.each(AUTH_STYLES.map((style) => [style.title, style.id] as const))(
    'when the %s code runs in curl, Python and JavaScript, then the sandbox accepts it',
    async (_title, style) => {
      for (const language of LANGUAGES) {
        // An HMAC signature is accepted once, and two in the same second are the same: each language signs in a second of its own.
        if (style === 'hmac') await new Promise((resolve) => setTimeout(resolve, 1_020 - (Date.now() % 1_000)));
        const ran = await runSnippet[language](authSnippet(style, language, input));
        expect({ style, language, ok: succeeded(language, ran), output: succeeded(language, ran) ? '' : ran.output.slice(0, 600) }).toEqual({
          style,
          language,
          ok: true,
          output: '',
        });
      }
    },
  );

  it.each(PAGINATION_STYLES.map((style) => [style.title, style.id] as const))(
    'when the %s code runs in curl, Python and JavaScript, then it reads all 2,173 employees',
    async (_title, style) => {
      const runs = await Promise.all(
        LANGUAGES.map(async (language) => ({ language, ran: await runSnippet[language](paginationSnippet(style, language, input)) })),
      );
      for (const { language, ran } of runs) {
        expect({ style, language, code: ran.code, rows: rowsOf(ran.output) }).toEqual({ style, language, code: 0, rows: 2173 });
      }
    },
  );
});

// ---- the checks themselves ---------------------------------------------------------

describe('the checks this file relies on', () => {
  it('when a screen breaks a rule, then the CSP listener, axe, the keyboard pass and the storage check each fail', async () => {
    const { context, page, problems } = await openPage();
    try {
      await page.goto(`${gateway()}/portal/`);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      // Script added as the page would add it (not through the DevTools protocol): the CSP refuses inline script.
      await page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.inlineRan = true';
        document.head.append(script);
      });
      // Heard twice: Chromium's own console message, and the securitypolicyviolation event.
      await eventually(
        async () => problems.join('\n'),
        (heard) => /CSP violation: script-src/.test(heard) && /Content Security Policy directive 'script-src/.test(heard),
        10_000,
      );
      expect(await page.evaluate(() => 'inlineRan' in window)).toBe(false);

      await page.evaluate(() => {
        const main = document.querySelector('main')!;
        main.append(document.createElement('input')); // no label
        const unreachable = document.createElement('button');
        unreachable.textContent = 'Out of the tab order';
        unreachable.tabIndex = -1;
        main.append(unreachable);
      });
      await expect(expectAccessible(page, 'broken')).rejects.toThrow(/"id": "label"/);
      await expect(expectKeyboardReachesEverything(page, 'broken')).rejects.toThrow(/Out of the tab order/);

      await page.evaluate(() => localStorage.setItem('kept', 'ak_not-really-a-key'));
      await expect(expectNothingStored(page, context, ['ak_not-really-a-key'])).rejects.toThrow();
    } finally {
      await context.close();
    }
  });
});

// ---- behind a proxy prefix ---------------------------------------------------------

describe('the portal page behind a proxy prefix', () => {
  it('when the page is opened at <proxy>/sandbox/portal/, then sign-up, app creation, the list and the snippets all use the prefix', async () => {
    proxy = await startPrefixProxy(gateway());
    const front = proxy.url;
    const redirect = await rawRequest(`${front}/sandbox/portal`);
    expect(redirect.status).toBe(308);
    expect(new URL(redirect.headers.location!, `${front}/sandbox/portal`).toString()).toBe(`${front}/sandbox/portal/`);

    const { context, page, problems } = await openPage();
    try {
      const api: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/api/')) api.push(request.url());
      });
      await page.goto(`${front}/sandbox/portal/`);
      await page.getByRole('button', { name: 'Create an account' }).click();
      await page.getByLabel('Email').fill(`prefix-${Date.now().toString(36)}@example.org`);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your apps' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Behind the ingress');
      await page.getByRole('button', { name: 'Create app' }).click();
      await page.locator('#revealed-apiKey').waitFor();
      const apiKey = (await page.locator('#revealed-apiKey').textContent())!;

      await page.getByRole('link', { name: /Get started/ }).click();
      const curl = (await page.locator('#auth-curl-code').textContent())!;
      expect(curl).toContain(`BASE='${front}/sandbox'`);
      const ran = await runSnippet.curl(curl);
      expect({ code: ran.code, entity: JSON.parse(ran.output).entity }).toEqual({ code: 0, entity: 'departments' });

      await page.getByRole('link', { name: '← Back to Behind the ingress' }).click();
      await page.getByRole('link', { name: '← All apps' }).click();
      await page.getByText('You have 1 app.').waitFor();
      await page.getByRole('link', { name: 'Behind the ingress' }).waitFor();

      expect(api.length).toBeGreaterThan(0);
      for (const url of api) expect(url.startsWith(`${front}/sandbox/api/`)).toBe(true);
      expect(problems).toEqual([]);
      await expectNothingStored(page, context, [PASSWORD, apiKey]);
    } finally {
      await context.close();
    }
  });
});
