import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import serveStatic from 'serve-static';
import type { Logger } from '@sandbox/runtime';
import { PORTAL_SECURITY_HEADERS } from '../../http/security-headers';
import type { Mount } from '../../http/server';

/** What the gateway serves as files, each built into dist/<dir> by `npm run build`. */
export const PORTAL_PREFIX = '/portal';
export const DOCS_PREFIX = '/docs';
export const GUIDES_PREFIX = '/guides';
export const POSTMAN_PREFIX = '/postman';
export const POSTMAN_COLLECTION = 'training-sandbox.postman_collection.json';
export const POSTMAN_ENVIRONMENT = 'training-sandbox.postman_environment.json';
const PAGES = [
  { prefix: PORTAL_PREFIX, dir: 'portal', entry: 'index.html', script: 'build:portal' },
  { prefix: DOCS_PREFIX, dir: 'docs', entry: 'index.html', script: 'build:docs' },
  // The project's guides, docs/*.md rendered to HTML (scripts/build-guides.cjs): the exercises link to their sections.
  { prefix: GUIDES_PREFIX, dir: 'guides', entry: 'index.html', script: 'build:guides' },
  // Downloads: a Postman collection and environment generated from the OpenAPI document.
  { prefix: POSTMAN_PREFIX, dir: 'postman', entry: POSTMAN_COLLECTION, script: 'build:postman' },
] as const;

/** dist/, two up from this file's dist/routes/system. */
const DIST = join(__dirname, '..', '..');

export interface StaticPages {
  mounts: Mount[];
  /** With the portal's dev server: its hot-reload WebSocket, for the HTTP server's 'upgrade' event. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/**
 * The portal (/portal/), the API reference (/docs/) and the guides
 * (/guides/), as files. Built with relative URLs, they are served from
 * dist/<page> with the pages' Content-Security-Policy (self only, no inline
 * script or style); each calls the API relative to its own address, so all
 * work at any proxy prefix.
 * Hashed assets are cached for a year, the page itself is revalidated every
 * time. `/portal` redirects to `/portal/` with a relative Location, so the
 * prefix the client sees is kept. Whatever no file answers falls through to
 * the dispatcher's 404.
 *
 * In development (PORTAL_DEV_SERVER_URL, `npm run dev:portal`) the portal's
 * requests are proxied to Vite's dev server instead (http-proxy-middleware),
 * so the page and the API still share one origin; Vite's hot reload needs
 * inline scripts, so the dev page does not get the CSP.
 */
export async function staticPages(portalDevServerUrl: string | undefined, logger: Logger): Promise<StaticPages> {
  const mounts: Mount[] = [];
  let upgrade: StaticPages['upgrade'];
  for (const page of PAGES) {
    const label = `${page.prefix}/*`;
    if (page.prefix === PORTAL_PREFIX && portalDevServerUrl) {
      const { createProxyMiddleware } = await import('http-proxy-middleware');
      const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({ target: portalDevServerUrl, ws: true, changeOrigin: false });
      logger.info({ devServerUrl: portalDevServerUrl }, 'portal: proxying /portal to the dev server');
      mounts.push({
        prefix: page.prefix,
        label,
        handler: withTrailingSlash(page.prefix, (req, res, next) => {
          // express strips the mount path; Vite serves the page under /portal/.
          req.url = req.originalUrl;
          void proxy(req, res, next);
        }),
      });
      upgrade = (req, socket, head) => {
        if ((req.url ?? '').startsWith(`${PORTAL_PREFIX}/`)) proxy.upgrade(req, socket as never, head);
        else socket.destroy();
      };
      continue;
    }
    const dir = join(DIST, page.dir);
    if (!existsSync(join(dir, page.entry))) logger.warn({ dir }, `${page.prefix}/ is not built (npm run ${page.script}); it answers 404`);
    const files = serveStatic(dir, {
      index: ['index.html'],
      redirect: false,
      fallthrough: true,
      dotfiles: 'ignore',
      setHeaders: (res, path) => {
        for (const [name, value] of Object.entries(PORTAL_SECURITY_HEADERS)) res.setHeader(name, value);
        res.setHeader('Cache-Control', /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
        if (page.prefix === POSTMAN_PREFIX) res.setHeader('Content-Disposition', `attachment; filename="${basename(path)}"`);
      },
    });
    mounts.push({ prefix: page.prefix, label, handler: withTrailingSlash(page.prefix, (req, res, next) => files(req, res, next)) });
  }
  return { mounts, upgrade };
}

/** `/portal` → `/portal/` (308, relative, query kept): the page's relative asset URLs need the slash. */
function withTrailingSlash(prefix: string, serve: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const q = req.originalUrl.indexOf('?');
    const path = q < 0 ? req.originalUrl : req.originalUrl.slice(0, q);
    if (path === prefix && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(308, { Location: `${prefix.slice(1)}/${q < 0 ? '' : req.originalUrl.slice(q)}`, 'Content-Length': '0', ...PORTAL_SECURITY_HEADERS });
      res.end();
      return;
    }
    return serve(req, res, next);
  };
}
