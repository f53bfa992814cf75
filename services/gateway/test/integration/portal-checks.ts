import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/*
 * What the portal's screen suites check on every screen (portal.test.ts,
 * portal-exercises, portal-classes): axe-core with no serious or critical
 * violation, the keyboard alone reaching every control with a focus ring,
 * nothing scrolling sideways at phone width, and a page that never broke
 * its CSP or threw.
 *
 * axe-core is put into the page with page.evaluate (the DevTools protocol),
 * which the page's CSP does not govern, so the CSP stays in force for
 * everything the page itself loads and runs.
 */

export const DESKTOP = { width: 1280, height: 800 };
/** The narrowest phone the brief names (issue #37: "works at phone width"). */
export const PHONE = { width: 360, height: 740 };
export const PASSWORD = 'correct horse battery staple';
/** Where each checked screen is pictured, for a person to look at (as portal.test.ts does). */
const SHOTS = join(__dirname, '..', '..', '..', '..', '.test-output', 'portal');

/** A browser context whose pages report every Content-Security-Policy violation and page error into `problems`. */
export async function openPage(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(30_000);
  const problems: string[] = [];
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'}`);
    });
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|CSP violation/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page, problems };
}

/** axe-core on the screen as it is: no serious or critical violation. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) }));
  });
  expect({ screen, violations: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({ screen, violations: [] });
}

/**
 * The keyboard alone: pressing Tab reaches every visible, enabled control of
 * the screen, each showing a focus outline.
 */
export async function expectKeyboardReachesEverything(page: Page, screen: string) {
  const total = await page.evaluate(() => {
    const selector = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';
    const controls = Array.from(document.querySelectorAll<HTMLElement>(selector)).filter(
      (el) => !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0 && !el.closest('dialog:not([open]), [inert]'),
    );
    controls.forEach((el, i) => el.setAttribute('data-keyboard-pass', String(i)));
    return controls.length;
  });
  const reached = new Set<string>();
  const unringed: string[] = [];
  for (let press = 0; press < 2 * total + 4 && reached.size < total; press++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      const index = el?.getAttribute('data-keyboard-pass');
      if (!el || index === null || index === undefined) return undefined;
      const style = getComputedStyle(el);
      return {
        index,
        ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
        name: `${el.tagName} ${el.id || el.textContent?.trim().slice(0, 30)}`,
      };
    });
    if (!focused) continue;
    reached.add(focused.index);
    if (!focused.ring) unringed.push(focused.name);
  }
  const missed = await page.evaluate(
    (seen) =>
      Array.from(document.querySelectorAll<HTMLElement>('[data-keyboard-pass]'))
        .filter((el) => !seen.includes(el.getAttribute('data-keyboard-pass')!))
        .map((el) => `${el.tagName} ${el.id || el.textContent?.trim().slice(0, 30)}`),
    [...reached],
  );
  expect({ screen, total: total > 0, missed, unringed: [...new Set(unringed)] }).toEqual({ screen, total: true, missed: [], unringed: [] });
  await page.evaluate(() => document.querySelectorAll('[data-keyboard-pass]').forEach((el) => el.removeAttribute('data-keyboard-pass')));
}

/** axe at desktop width and at 360 px, where nothing may scroll sideways (a wide table scrolls inside its own box); a screenshot of each. */
export async function expectAccessibleAtBothWidths(page: Page, screen: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect({ screen, label, overflow }).toEqual({ screen, label, overflow: 0 });
    await expectAccessible(page, `${screen} (${label})`);
    await page.screenshot({ path: join(SHOTS, `${screen}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

/** Signs up through the page's own form; resolves when the app list shows. */
export async function signUpInPage(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/portal/`);
  await page.getByRole('button', { name: 'Create an account' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { level: 1, name: 'Your apps' }).waitFor();
}

/** Creates an app through the page; resolves to the credentials it shows once. */
export async function createAppInPage(page: Page, name: string): Promise<{ id: string; appId: string; appSecret: string; apiKey: string }> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Create app' }).click();
  await page.locator('#revealed-apiKey').waitFor();
  return {
    id: /#\/apps\/([0-9a-f]{24})$/.exec(page.url())![1],
    appId: (await page.locator('#revealed-appId').textContent())!,
    appSecret: (await page.locator('#revealed-appSecret').textContent())!,
    apiKey: (await page.locator('#revealed-apiKey').textContent())!,
  };
}

/**
 * Marks the document, so that a later `expectSameDocument` proves the page
 * was never reloaded or navigated away in between (a hash change keeps it).
 */
export const markDocument = (page: Page) =>
  page.evaluate(() => {
    (window as unknown as { sameDocument: boolean }).sameDocument = true;
  });
export const expectSameDocument = async (page: Page) =>
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true)).toBe(true);
