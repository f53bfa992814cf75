import type { Browser } from 'playwright-core';
import { eventually, rawRequest, startSystem, type RunningSystem } from '@sandbox/testing';
import { launchChromium } from '../../../../test/support/browser';

jest.setTimeout(120_000);

/*
 * The API reference at /docs/: Swagger UI, bundled into the gateway's own
 * files, renders the document the gateway serves, in Debian's Chromium, under
 * the pages' Content-Security-Policy, with nothing fetched from elsewhere.
 */
describe('the API reference page', () => {
  let system: RunningSystem;
  let browser: Browser;
  beforeAll(async () => {
    system = await startSystem();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('when /docs is asked for, then it redirects to /docs/ and the page carries the strict CSP', async () => {
    const redirect = await rawRequest(`${system.baseUrl}/docs`);
    expect({ status: redirect.status, location: redirect.headers.location }).toEqual({ status: 308, location: 'docs/' });
    const page = await rawRequest(`${system.baseUrl}/docs/`);
    expect(page.status).toBe(200);
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(String(page.headers['content-security-policy'])).not.toContain('unsafe');
  });

  it('when opened in a browser, then every operation of the document is listed, with no CSP violation and no request to another origin', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|CSP violation/i.test(message.text())) problems.push(message.text());
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.origin !== new URL(system.baseUrl).origin) elsewhere.push(request.url());
    });
    try {
      await page.goto(`${system.baseUrl}/docs/`);
      const document = (await rawRequest(`${system.baseUrl}/openapi.json`)).json<{ paths: Record<string, Record<string, unknown>> }>();
      const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
      const listed = page.locator('.opblock');
      await listed.first().waitFor({ timeout: 60_000 });
      const { value: count } = await eventually(
        () => listed.count(),
        (n) => n === operations,
        30_000,
        200,
      );
      expect(count).toBe(operations);
      await page.getByText('Create an app; its credentials are returned in this answer only.').first().waitFor();
      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
