import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Kept out of index.ts on purpose: only the browser tests pay for loading
 * playwright-core.
 *
 * The browser is Debian's `chromium` (scripts/lib/provision.sh ensure_chromium
 * installs it): Playwright's own browser download cannot be reached from this
 * project's machines.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Headless, no sandbox (tests run as root), and none of Chromium's own traffic:
// its connections to the internet are refused here and waiting on them slows it down.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium with a fresh profile (Playwright makes a new user-data dir per launch and removes it on close). */
export async function launchChromium(timeoutMs = 60_000): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: run \`bash -c 'source scripts/lib/provision.sh; ensure_chromium'\` (npm test does it), or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: timeoutMs });
}

export interface PageOrigin {
  /** e.g. http://127.0.0.1:41234, exactly as a browser sends it in Origin. */
  origin: string;
  close(): Promise<void>;
}

/**
 * A second origin for cross-origin tests: a node:http server on its own
 * loopback port serving one empty HTML page at every path. A different port
 * is a different origin, so the page's fetches to the system are cross-origin.
 */
export function servePageOrigin(host = '127.0.0.1'): Promise<PageOrigin> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end('<!doctype html><html><head><meta charset="utf-8"><title>another origin</title></head><body>another origin</body></html>');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  credentials?: 'omit' | 'same-origin' | 'include';
}

/** What a page's fetch() came to: the answer as the page may read it, or the error it threw. */
export type FetchOutcome = { kind: 'answer'; status: number; body: string; requestId: string | null } | { kind: 'error'; name: string; message: string };

/**
 * Runs fetch() inside the page, so the browser applies CORS exactly as it
 * would for a learner's page. A refused CORS check surfaces as a TypeError.
 */
export function fetchFromPage(page: Page, url: string, init: FetchInit = {}): Promise<FetchOutcome> {
  return page.evaluate(
    async ({ url, init }): Promise<FetchOutcome> => {
      try {
        const response = await fetch(url, { ...init, cache: 'no-store' });
        // X-Request-Id is readable only if the answer exposes it (Access-Control-Expose-Headers).
        return { kind: 'answer', status: response.status, body: await response.text(), requestId: response.headers.get('x-request-id') };
      } catch (error) {
        const { name, message } = error as Error;
        return { kind: 'error', name, message };
      }
    },
    { url, init },
  );
}
