import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import serveStatic from 'serve-static';
import type { Logger } from '@sandbox/runtime';
import { PORTAL_SECURITY_HEADERS } from './security-headers';

/** Where the portal lives, and the route label its requests are counted under. */
export const PORTAL_PREFIX = '/portal';
export const PORTAL_ROUTE_LABEL = '/portal/*';

/** Where `npm run build:portal` (Vite) writes the page: dist/portal, beside this file's dist/http. */
export const PORTAL_BUILD_DIR = join(__dirname, '..', 'portal');

export interface PortalAssets {
  /** Mounted at PORTAL_PREFIX on the gateway's express app; calls `next` when no file answers (the dispatcher's 404). */
  handler: RequestHandler;
  /** With the dev server: its hot-reload WebSocket, for the HTTP server's 'upgrade' event. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/**
 * The portal's files. Built (Vite, with relative asset URLs), they are served
 * from dist/portal with the portal's Content-Security-Policy; the page calls
 * the API relative to its own address, so it works at /portal/ and behind a
 * proxy prefix alike. Hashed assets are cached for a year, the page itself is
 * revalidated every time. `/portal` redirects to `/portal/` with a relative
 * Location, so the prefix the client sees is kept.
 *
 * In development (PORTAL_DEV_SERVER_URL, `npm run dev:portal`) the requests
 * are proxied to Vite's dev server instead (http-proxy-middleware), so the
 * page and the API still share one origin; Vite's hot reload needs inline
 * scripts, so the dev page does not get the portal's CSP.
 */
export async function portalAssets(devServerUrl: string | undefined, logger: Logger): Promise<PortalAssets> {
  if (devServerUrl) {
    const { createProxyMiddleware } = await import('http-proxy-middleware');
    const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({ target: devServerUrl, ws: true, changeOrigin: false });
    logger.info({ devServerUrl }, 'portal: proxying /portal to the dev server');
    return {
      handler: withTrailingSlash((req, res, next) => {
        // express strips the mount path; Vite serves the page under /portal/.
        req.url = req.originalUrl;
        void proxy(req, res, next);
      }),
      upgrade: (req, socket, head) => {
        if ((req.url ?? '').startsWith(`${PORTAL_PREFIX}/`)) proxy.upgrade(req, socket as never, head);
        else socket.destroy();
      },
    };
  }
  if (!existsSync(join(PORTAL_BUILD_DIR, 'index.html'))) {
    logger.warn({ dir: PORTAL_BUILD_DIR }, 'portal: not built (npm run build:portal); /portal/ answers 404');
  }
  const files = serveStatic(PORTAL_BUILD_DIR, {
    index: ['index.html'],
    redirect: false,
    fallthrough: true,
    dotfiles: 'ignore',
    setHeaders: (res, path) => {
      for (const [name, value] of Object.entries(PORTAL_SECURITY_HEADERS)) res.setHeader(name, value);
      res.setHeader('Cache-Control', /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return { handler: withTrailingSlash((req, res, next) => files(req, res, next)) };
}

/** `/portal` → `/portal/` (308, relative, query kept): the page's relative asset URLs need the slash. */
function withTrailingSlash(serve: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const q = req.originalUrl.indexOf('?');
    const path = q < 0 ? req.originalUrl : req.originalUrl.slice(0, q);
    if (path === PORTAL_PREFIX && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(308, { Location: `${PORTAL_PREFIX.slice(1)}/${q < 0 ? '' : req.originalUrl.slice(q)}`, 'Content-Length': '0', ...PORTAL_SECURITY_HEADERS });
      res.end();
      return;
    }
    return serve(req, res, next);
  };
}
