import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/*
 * The API reference page (/docs/). `npm run build:docs` writes it to
 * services/gateway/dist/docs, which the gateway serves under the same strict
 * Content-Security-Policy as the portal.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  publicDir: false,
  cacheDir: fileURLToPath(new URL('../../../node_modules/.vite/docs', import.meta.url)),
  build: {
    outDir: fileURLToPath(new URL('../dist/docs', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Every asset a file under 'self'; nothing inlined.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    // Swagger UI is one large bundle by design.
    chunkSizeWarningLimit: 2048,
  },
});
