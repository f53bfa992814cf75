import type { Browser, BrowserContext, Page } from 'playwright-core';
import { isolatedMongoUrl, requireStoreUrls, startSystem, type RunningSystem } from '@sandbox/testing';
import { launchChromium } from '../../../../test/support/browser';
import {
  createAppInPage,
  expectAccessibleAtBothWidths,
  expectKeyboardReachesEverything,
  expectSameDocument,
  markDocument,
  openPage,
  signUpInPage,
} from './portal-checks';

// Five processes and a browser on a busy 2-core machine; identity judges what the gateway flushes about once a second.
jest.setTimeout(150_000);

/** Long enough for a flush, a judging and the screen's next poll (3 s) on a busy machine; the waits end as soon as the page shows it. */
const SHOWN_WITHIN = 30_000;

/*
 * The portal's Exercises screen in a real browser against the whole system
 * (docs/exercises.md, "In the portal"): a learner signs up and creates an
 * app in the page, opens Exercises (all not started), then makes a wrong and
 * a right Basic request from this test (Node's fetch, real HTTP). The open
 * screen shows "Attempted" with the hint, then "Done", without a reload, and
 * its polite live region says so. The screen polls only while it is visible
 * and on screen.
 */
describe('the portal Exercises screen', () => {
  let system: RunningSystem;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let app: { id: string; appId: string; appSecret: string; apiKey: string };
  /** The page's requests for GET /api/exercises, in order. */
  const polls: number[] = [];
  const APP_NAME = 'Exercise runner';

  beforeAll(async () => {
    [system, browser] = await Promise.all([
      startSystem({ MONGO_URL: isolatedMongoUrl('portal_exercises'), REDIS_URL: requireStoreUrls().redisUrl }, 120_000),
      launchChromium(),
    ]);
    ({ context, page, problems } = await openPage(browser));
    page.on('request', (request) => {
      if (request.method() === 'GET' && new URL(request.url()).pathname === '/api/exercises') polls.push(Date.now());
    });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await system?.stop();
  });
  afterEach(() => {
    // Every step ran under the gateway's CSP without a violation or a page error.
    expect(problems).toEqual([]);
  });

  const card = (id: string) => page.locator(`[data-exercise="${id}"]`);
  const basic = (secret: string) =>
    fetch(`${system.baseUrl}/playground/auth/basic`, { headers: { Authorization: `Basic ${Buffer.from(`${app.appId}:${secret}`).toString('base64')}` } });

  it('when a new learner opens Exercises, then every exercise is not started, in its group, and the screen passes axe at desktop and 360 px', async () => {
    await signUpInPage(page, system.baseUrl, `exercises-${Date.now().toString(36)}@example.org`);
    app = await createAppInPage(page, APP_NAME);

    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Exercises' }).click();
    await page.getByRole('heading', { level: 1, name: 'Exercises' }).waitFor();
    await page.getByText(/^0 of \d+ done/).waitFor();
    const total = await page.locator('[data-exercise]').count();
    expect(total).toBeGreaterThanOrEqual(20);
    expect(await page.locator('[data-exercise]').getByText('Not started', { exact: true }).count()).toBe(total);
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Getting started/), expect.stringMatching(/^Authentication/), expect.stringMatching(/^Paging/)]),
    );
    expect(await page.getByRole('link', { name: 'Exercises' }).getAttribute('aria-current')).toBe('page');
    // The doc section it teaches, named exactly, and a link to it in the guides the gateway serves.
    const read = card('auth-basic').getByRole('link', { name: /^Read: docs\/auth-playground\.md#/ });
    expect(await read.locator('code').textContent()).toMatch(/^docs\/auth-playground\.md#/);
    expect(await read.getAttribute('href')).toMatch(/^\.\.\/guides\/auth-playground\.html#[a-z0-9-]+$/);
    await expectAccessibleAtBothWidths(page, 'exercises');
    await expectKeyboardReachesEverything(page, 'exercises');
  });

  it('when the learner sends a wrong and then a right Basic request, then the open screen shows Attempted with the hint, then Done, without a reload, and announces it', async () => {
    await markDocument(page);
    const focused = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 60));

    expect((await basic('as_not-the-secret')).status).toBe(401);
    await card('auth-basic').getByText('Attempted', { exact: true }).waitFor({ timeout: SHOWN_WITHIN });
    expect(await card('auth-basic').locator('.hint-box').textContent()).toMatch(/Hint from your last try.*401/);
    await page
      .getByTestId('exercise-announcements')
      .getByText(/Basic: attempted\./)
      .waitFor();

    expect((await basic(app.appSecret)).status).toBe(200);
    await card('auth-basic')
      .getByText(new RegExp(`^Done with ${APP_NAME} at `))
      .waitFor({ timeout: SHOWN_WITHIN });
    expect(await card('auth-basic').locator('.hint-box').count()).toBe(0);
    await page
      .getByTestId('exercise-announcements')
      .getByText(/Basic: done\./)
      .waitFor();
    await page.getByText(/^[12] of \d+ done/).waitFor();

    await expectSameDocument(page);
    // Updates never move the learner's focus.
    expect(await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 60))).toBe(focused);
    await expectAccessibleAtBothWidths(page, 'exercises-progress');
  });

  it('when the tab is hidden, then the screen stops asking; shown again, it asks at once', async () => {
    // Chromium keeps a headless page visible; the page is told otherwise the way a browser tells it.
    const setVisibility = (state: 'hidden' | 'visible') =>
      page.evaluate((value) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => value });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    await setVisibility('hidden');
    const hiddenAt = Date.now();
    // Three poll intervals: a screen still polling would have asked at least twice. Waiting longer only makes the check stricter.
    await page.waitForTimeout(9_000);
    expect(polls.filter((at) => at > hiddenAt)).toEqual([]);
    await Promise.all([page.waitForRequest((r) => new URL(r.url()).pathname === '/api/exercises'), setVisibility('visible')]);
  });

  it('when the learner follows an exercise to its code, then Get started opens on that style, and leaving Exercises stops the polling', async () => {
    await card('auth-basic')
      .getByRole('link', { name: /^Code: Basic/ })
      .click();
    await page.getByRole('heading', { level: 1, name: `Get started with ${APP_NAME}` }).waitFor();
    expect(await page.locator('#auth-style').inputValue()).toBe('basic');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('auth-title');
    expect(page.url()).toMatch(new RegExp(`#/apps/${app.id}/start/basic$`));
    const leftAt = Date.now();
    await page.waitForTimeout(9_000);
    expect(polls.filter((at) => at > leftAt)).toEqual([]);
  });

  it('when the learner has no class, then Your classes offers the join form, and a wrong code is refused in the field', async () => {
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Exercises' }).click();
    await page.getByRole('heading', { level: 2, name: 'Your classes' }).waitFor();
    await page.getByText('You are in no class.').waitFor();
    await page.getByLabel('Join a class: its code').fill('ZZZZ-ZZZZ');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.locator('#class-code-error').waitFor();
    expect(await page.locator('#class-code-error').textContent()).toMatch(/No class has this join code/);
    expect(await page.getByLabel('Join a class: its code').getAttribute('aria-invalid')).toBe('true');
    await expectAccessibleAtBothWidths(page, 'exercises-join-refused');
  });

  it("when the learner follows an exercise to its doc section, then the guide opens at that section's heading", async () => {
    // The screen the previous step left open.
    const read = card('auth-basic').getByRole('link', { name: /^Read: / });
    const href = await read.evaluate((a) => (a as HTMLAnchorElement).href);
    const anchor = new URL(href).hash.slice(1);
    // In a page of its own, as a new tab would open it: the portal stays as it is.
    const guide = await context.newPage();
    try {
      await guide.goto(href);
      expect(await guide.locator(':target').evaluate((el) => `${el.tagName.toLowerCase()}#${el.id}`)).toMatch(new RegExp(`^h[1-6]#${anchor}$`));
    } finally {
      await guide.close();
    }
  });
});
