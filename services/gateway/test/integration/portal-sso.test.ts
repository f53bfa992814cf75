import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { apiRequest, isolatedMongoUrl, requireStoreUrls, startSystem, type RunningSystem } from '@sandbox/testing';
import { launchChromium } from '../../../../test/support/browser';
import { startOidcProvider, type OidcProviderFixture } from '../../../../test/support/oidc-provider';

// A system, a provider and a browser on a busy 2-core machine.
jest.setTimeout(150_000);

/*
 * Single sign-on in a real browser (headless Chromium): the portal's "Sign in
 * with <provider>" leads to a real OpenID provider (oidc-provider, on
 * loopback), and back signed in; the learner creates an app and signs out.
 * SIGNUP=closed, so the page offers no account creation, and a cancelled
 * sign-in comes back as words on the sign-in screen. As in portal.test.ts,
 * every page is watched for Content-Security-Policy violations, and nothing
 * of the sign-in may stay behind in cookies, storage or the URL.
 */

const SESSION_KEY = 'training-sandbox.portal.session';
const PROVIDER_NAME = 'Campus login';

let provider: OidcProviderFixture | undefined;
let system: RunningSystem | undefined;
let browser: Browser | undefined;
const base = () => system!.baseUrl;

beforeAll(async () => {
  provider = await startOidcProvider();
  await Promise.all([
    startSystem(
      {
        MONGO_URL: isolatedMongoUrl('portal_sso'),
        REDIS_URL: requireStoreUrls().redisUrl,
        SIGNUP: 'closed',
        EXTERNAL_IDP_ISSUER: provider.issuer,
        EXTERNAL_IDP_JWKS_URL: provider.jwksUrl,
        SSO_CLIENT_ID: 'training-sandbox',
        SSO_PROVIDER_NAME: PROVIDER_NAME,
      },
      120_000,
    ).then((s) => (system = s)),
    launchChromium().then((b) => (browser = b)),
  ]);
  await provider.registerClient({ client_id: 'training-sandbox', token_endpoint_auth_method: 'none', redirect_uris: [`${base()}/api/auth/sso/callback`] });
});

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await provider?.stop();
});

/** A page whose CSP violations and page errors are collected (the gateway's pages only: the provider's are its own). */
async function openPage(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(30_000);
  const problems: string[] = [];
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'}`),
    );
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|CSP violation/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page, problems };
}

async function expectAccessible(page: Page, screen: string) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) }));
  });
  expect({ screen, violations: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({ screen, violations: [] });
}

/** The gateway's own cookies (the provider, on the same host, keeps its session cookies: they are its business). */
const sandboxCookies = async (context: BrowserContext) => (await context.cookies()).filter((cookie) => cookie.name.startsWith('sandbox_'));

it('a learner signs in through the provider, creates an app and signs out; the page offers no sign-up (SIGNUP=closed)', async () => {
  const { context, page, problems } = await openPage();
  try {
    await page.goto(`${base()}/portal/`);
    const ssoLink = page.getByRole('link', { name: `Sign in with ${PROVIDER_NAME}` });
    await ssoLink.waitFor();
    // Closed: nothing offers to create an account; passwords still sign in.
    expect(await page.getByRole('button', { name: 'Create an account' }).count()).toBe(0);
    expect(await page.getByLabel('Password').count()).toBe(1);
    expect(await ssoLink.getAttribute('href')).toBe('../api/auth/sso/start');
    await expectAccessible(page, 'sign-in with single sign-on');

    await ssoLink.click();
    await page.waitForURL((url) => url.origin === provider!.issuer);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();

    // Back on the portal, signed in: the session was picked up and the hash tidied.
    await page.getByRole('heading', { level: 1, name: 'Your apps' }).waitFor();
    await page.getByText('ada@campus.example').waitFor();
    expect(new URL(page.url()).hash).toBe('#/apps');
    const token = await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY);
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await sandboxCookies(context)).toEqual([]);
    expect((await apiRequest(base(), 'GET', '/api/me', { token: token! })).json()).toMatchObject({ email: 'ada@campus.example', provider: provider!.issuer });

    await page.getByLabel('Name', { exact: true }).fill('Campus dashboard');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { level: 1, name: 'Campus dashboard' }).waitFor();
    const apps = await apiRequest(base(), 'GET', '/api/apps', { token: token! });
    expect(apps.json().apps.map((app: { name: string }) => app.name)).toEqual(['Campus dashboard']);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
    // Sign-out ended the provider's token on the sandbox at once, though it has not expired.
    expect((await apiRequest(base(), 'GET', '/api/me', { token: token! })).json().error.code).toBe('session_ended');
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
});

it('a learner who cancels at the provider is back on the sign-in screen, told in words what happened', async () => {
  const { context, page, problems } = await openPage();
  try {
    await page.goto(`${base()}/portal/`);
    await page.getByRole('link', { name: `Sign in with ${PROVIDER_NAME}` }).click();
    await page.waitForURL((url) => url.origin === provider!.issuer);
    await page.getByRole('link', { name: 'Cancel' }).click();

    // The alert shows at once; the provider's name arrives with GET /api/auth/options (until then it says "your organisation's sign-in"), so wait for it.
    const alert = page.getByRole('alert').filter({ hasText: `declined at ${PROVIDER_NAME}.` });
    await alert.waitFor();
    expect(await alert.innerText()).toContain(`You were not signed in: the sign-in was cancelled or declined at ${PROVIDER_NAME}.`);
    expect(await alert.innerText()).toContain(`${PROVIDER_NAME} said: “The person cancelled the sign-in.”`);
    // The code is read once: the hash no longer holds it, so a reload does not repeat it.
    expect(new URL(page.url()).hash).toBe('#/sign-in');
    expect(await sandboxCookies(context)).toEqual([]);
    await expectAccessible(page, 'sign-in with a single sign-on error');
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
});
