import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { rawRequest, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(90_000);

/*
 * How the gateway serves the portal's built files (npm run build:portal writes
 * them to services/gateway/dist/portal; the test command builds first): the
 * redirect to the trailing slash, the portal's own security headers, caching,
 * relative asset URLs (so a proxy prefix works), 404s in the API's error
 * shape, and the development proxy to Vite's dev server. What the page does
 * is proven in Chromium by portal.test.ts.
 */
const BUILD_DIR = join(__dirname, '..', '..', 'dist', 'portal');
const EXPECTED_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

/** Every URL index.html loads (scripts, styles, icons, preloads); data: URLs load nothing. */
function referencedAssets(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*?\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((url) => !url.startsWith('data:'));
}

describe('the portal files, served by the gateway', () => {
  let system: RunningSystem;
  let html: string;
  beforeAll(async () => {
    if (!existsSync(join(BUILD_DIR, 'index.html'))) throw new Error(`the portal is not built in ${BUILD_DIR}: run npm run build`);
    html = readFileSync(join(BUILD_DIR, 'index.html'), 'utf8');
    system = await startSystem();
  });
  afterAll(() => system?.stop());

  it('when /portal is asked for, then it redirects to /portal/ with a relative Location (a proxy prefix is kept) and the query', async () => {
    const res = await rawRequest(`${system.baseUrl}/portal?from=docs`);
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe('portal/?from=docs');
    expect(new URL(res.headers.location!, 'https://example.org/sandbox/portal').pathname).toBe('/sandbox/portal/');
  });

  it("when the page is fetched, then it carries the portal's CSP (no inline script, nothing from elsewhere, never framed) and is revalidated each time", async () => {
    const res = await rawRequest(`${system.baseUrl}/portal/`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(
      String(res.headers['content-security-policy'])
        .split(';')
        .map((d) => d.trim())
        .sort(),
    ).toEqual([...EXPECTED_CSP].sort());
    expect(res.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cache-control': 'no-cache',
      'cross-origin-resource-policy': 'same-origin',
    });
    expect(res.headers['x-request-id']).toMatch(/\S/);
    expect(res.body).toBe(html);
  });

  it('when the page is read, then it has no inline script or style attribute, and every asset URL is relative', () => {
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle="/);
    const assets = referencedAssets(html);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) expect({ asset, relative: !/^([a-z]+:|\/)/i.test(asset) }).toEqual({ asset, relative: true });
  });

  it('when each asset is fetched, then it answers with its type and is cached for good (its name carries its hash)', async () => {
    for (const asset of referencedAssets(html)) {
      const res = await rawRequest(new URL(asset, `${system.baseUrl}/portal/`).href);
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      expect(res.headers['content-type']).toMatch(/javascript|css|image|icon|json/);
      if (/\/assets\//.test(new URL(asset, 'http://x/portal/').pathname)) expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  it.each([
    ['a file that does not exist', 'GET', '/portal/nothing-here.js'],
    ['a method other than GET', 'POST', '/portal/'],
    ['a path that climbs out of the portal', 'GET', '/portal/..%2f..%2fpackage.json'],
    ['a dot file', 'GET', '/portal/.env'],
  ])('when %s is asked for, then the answer is a 404 in the API error shape', async (_label, method, path) => {
    const res = await rawRequest(`${system.baseUrl}${path}`, { method });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().error.code).toBe('not_found');
  });

  it('when GET / is asked for, then its links name the portal', async () => {
    const res = await rawRequest(`${system.baseUrl}/`);
    expect(res.json().links.portal).toBe(`${system.baseUrl}/portal/`);
  });
});

describe('the portal in development (PORTAL_DEV_SERVER_URL)', () => {
  // Stands in for Vite's dev server (a third-party tool, not one of ours):
  // it answers with the path it was asked for, so the proxying is visible.
  let devServer: http.Server;
  let system: RunningSystem;
  beforeAll(async () => {
    devServer = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Dev-Server': 'yes' });
      res.end(`dev server saw ${req.method} ${req.url} host=${req.headers.host}`);
    });
    await new Promise<void>((resolve) => devServer.listen(0, '127.0.0.1', resolve));
    const devUrl = `http://127.0.0.1:${(devServer.address() as AddressInfo).port}`;
    system = await startSystem({ PORTAL_DEV_SERVER_URL: devUrl });
  });
  afterAll(async () => {
    await system?.stop();
    await new Promise((resolve) => devServer.close(resolve));
  });

  it('when a portal path is asked for, then the dev server answers it with the full path, and the API is still the gateway', async () => {
    const page = await rawRequest(`${system.baseUrl}/portal/src/main.tsx?t=1`);
    expect(page.status).toBe(200);
    expect(page.headers['x-dev-server']).toBe('yes');
    expect(page.body).toMatch(/^dev server saw GET \/portal\/src\/main\.tsx\?t=1 /);
    const api = await rawRequest(`${system.baseUrl}/health`);
    expect(api.headers['x-dev-server']).toBeUndefined();
    expect(api.json()).toEqual({ status: 'ok' });
  });
});
