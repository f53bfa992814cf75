import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/*
 * The portal page (docs/portal.md). `npm run build:portal` writes it to
 * services/gateway/dist/portal, which the gateway serves at /portal/ under a
 * strict Content-Security-Policy; `npm run dev:portal` serves it on
 * 127.0.0.1:5173 for the gateway to proxy (PORTAL_DEV_SERVER_URL).
 */
export default defineConfig(({ command }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Built: relative asset URLs, so the page works under any proxy prefix
  // (https://host/sandbox/portal/). Dev: the path the gateway proxies.
  base: command === 'serve' ? '/portal/' : './',
  publicDir: false,
  // Vite's dependency cache with the rest of node_modules, not a new folder under services/gateway.
  cacheDir: fileURLToPath(new URL('../../../node_modules/.vite/portal', import.meta.url)),
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/portal', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Nothing inlined as data: or injected at run time: every asset is a file the CSP's 'self' covers.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
}));
