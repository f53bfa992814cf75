import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import type { Browser } from 'playwright-core';
import { apiRequest, rawRequest, registerUser, startSystem, type RunningSystem } from '@sandbox/testing';
import { launchChromium } from '../../../../test/support/browser';
import { expectAccessible, openPage, PHONE } from './portal-checks';

// The whole system (the exercises come from identity) and a browser on a busy 2-core machine.
jest.setTimeout(120_000);

/*
 * The guides at /guides/: docs/*.md rendered to HTML by `npm run build:guides`
 * (services/gateway/scripts/build-guides.cjs; the test command builds first)
 * and served by the gateway like the portal's files. Every guide is listed,
 * every exercise's section (its `docs`, as GET /api/exercises answers it) is
 * an id in its page, links between guides point at the pages, the pages carry
 * the portal's security headers, and one page passes axe at 360 px in Chromium
 * without a CSP violation or sideways scrolling.
 */
const DOCS = join(__dirname, '..', '..', '..', '..', 'docs');
const GUIDES = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .map((f) => f.slice(0, -'.md'.length))
  .sort();
/** The headers that make a page's security: the same on the guides as on the portal. */
const SECURITY_HEADERS = ['content-security-policy', 'x-content-type-options', 'referrer-policy', 'x-frame-options', 'cross-origin-resource-policy'] as const;

describe('the guides, served by the gateway', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(() => system?.stop());

  const get = (path: string) => rawRequest(`${system.baseUrl}${path}`);

  it('when /guides is asked for, then it redirects to /guides/ with a relative Location', async () => {
    const res = await get('/guides');
    expect({ status: res.status, location: res.headers.location }).toEqual({ status: 308, location: 'guides/' });
  });

  it('when the index is fetched, then it links every docs/*.md page, each of which answers', async () => {
    const res = await get('/guides/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const list = /<ul class="guides">([\s\S]*?)<\/ul>/.exec(res.body)?.[1] ?? '';
    const linked = [...list.matchAll(/<a href="([a-z0-9-]+)\.html">/g)].map((m) => m[1]).sort();
    expect(linked).toEqual(GUIDES);
    for (const guide of GUIDES) {
      const page = await get(`/guides/${guide}.html`);
      expect({ guide, status: page.status, title: /<h1 id="[^"]+">/.test(page.body) }).toEqual({ guide, status: 200, title: true });
    }
  });

  it("when a guide is fetched, then it carries the portal page's security headers, is revalidated each time, and every URL in it is relative", async () => {
    const [guide, portal] = await Promise.all([get('/guides/auth-playground.html'), get('/portal/')]);
    expect(guide.status).toBe(200);
    for (const name of SECURITY_HEADERS) expect({ name, value: guide.headers[name] }).toEqual({ name, value: portal.headers[name] });
    expect(String(guide.headers['content-security-policy'])).toContain("style-src 'self'");
    expect(guide.headers['cache-control']).toBe('no-cache');
    expect(guide.body).not.toMatch(/<script\b/);
    expect(guide.body).not.toMatch(/\sstyle="/);
    // The header's links and the stylesheet: relative, so a proxy prefix is kept.
    expect(guide.body).toContain('<link rel="stylesheet" href="guides.css" />');
    expect(guide.body).toContain('<a href="../portal/">');
    expect(guide.body).toContain('<a href="index.html">Guides</a>');
    const css = await get('/guides/guides.css');
    expect({ status: css.status, type: css.headers['content-type'] }).toEqual({ status: 200, type: expect.stringMatching(/^text\/css/) });
  });

  it("when every exercise's doc section is looked up, then its page has a heading with that id", async () => {
    const token = await registerUser(system.baseUrl);
    const res = await apiRequest(system.baseUrl, 'GET', '/api/exercises', { token });
    expect(res.status).toBe(200);
    const exercises: { id: string; docs: string }[] = res.json().exercises;
    expect(exercises.length).toBeGreaterThanOrEqual(20);
    const pages = new Map<string, string>();
    for (const { id, docs } of exercises) {
      const match = /^docs\/([a-z0-9-]+)\.md#(.+)$/.exec(docs);
      expect({ id, docs, guideSection: Boolean(match) }).toEqual({ id, docs, guideSection: true });
      const [, guide, anchor] = match!;
      if (!pages.has(guide)) pages.set(guide, (await get(`/guides/${guide}.html`)).body);
      expect({ id, docs, heading: new RegExp(`<h[1-6] id="${anchor}">`).test(pages.get(guide)!) }).toEqual({ id, docs, heading: true });
    }
  });

  it('when a guide links another guide, then the link points at its page; a link out of docs/ is plain text; raw HTML is shown as text', async () => {
    // docs/auth-playground.md links [docs/oauth.md](oauth.md); docs/load-testing.md links ../bench/vs-go-httpbin.mjs.
    const auth = (await get('/guides/auth-playground.html')).body;
    expect(auth).toMatch(/<a href="oauth\.html(#[a-z0-9-]+)?">/);
    expect(auth).not.toMatch(/href="[^"]*\.md[#"]/);
    const loadTesting = (await get('/guides/load-testing.html')).body;
    expect(loadTesting).toContain('vs-go-httpbin.mjs');
    expect(loadTesting).not.toMatch(/href="[^"]*bench\//);
    // docs/decisions.md writes "Sign in with <provider>" in prose.
    expect((await get('/guides/decisions.html')).body).toContain('Sign in with &lt;provider&gt;');
  });

  it.each([
    ['a guide that does not exist', 'GET', '/guides/nothing-here.html'],
    ['a Markdown source', 'GET', '/guides/oauth.md'],
    ['a method other than GET', 'POST', '/guides/'],
    ['a path that climbs out of the guides', 'GET', '/guides/..%2f..%2fpackage.json'],
  ])('when %s is asked for, then the answer is a 404 in the API error shape', async (_label, method, path) => {
    const res = await rawRequest(`${system.baseUrl}${path}`, { method });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().error.code).toBe('not_found');
  });

  describe('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(() => browser?.close());

    it('when a guide is opened at a section at 360 px, then that heading is the target and the stylesheet applies under the CSP', async () => {
      const { context, page, problems } = await openPage(browser, PHONE);
      try {
        await page.goto(`${system.baseUrl}/guides/http-practice.html#batch-post-playgroundbatch`);
        expect(await page.locator(':target').evaluate((el) => `${el.tagName} ${el.id}`)).toBe('H2 batch-post-playgroundbatch');
        // The stylesheet loaded (the CSP allowed it): the text column is bounded.
        expect(await page.locator('main').evaluate((el) => getComputedStyle(el).maxWidth)).toBe('800px');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('when every guide and the index are opened at 360 px, then nothing scrolls sideways (tables and code scroll in their boxes) and axe finds no violation at all', async () => {
      const { context, page, problems } = await openPage(browser, PHONE);
      try {
        for (const guide of ['index', ...GUIDES]) {
          await page.goto(`${system.baseUrl}/guides/${guide}.html`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect({ guide, overflow }).toEqual({ guide, overflow: 0 });
          // Stricter than the portal's screens (expectAccessible: serious and critical): any impact, minor included.
          await page.evaluate(axe.source);
          const violations = await page.evaluate(async () => {
            const result = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] });
            return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes[0]?.target.join(' ')}`);
          });
          expect({ guide, violations }).toEqual({ guide, violations: [] });
        }
        await expectAccessible(page, 'guides (phone)');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
