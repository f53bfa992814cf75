import { randomBytes } from 'node:crypto';
import { catalog, describePack, findPack, renderPage } from './domain';

/**
 * What the gateway's OpenAPI document shows as the data endpoints' examples,
 * made by the very functions this service answers with, so the examples
 * are this service's answers and cannot drift from them. The gateway's build
 * writes them into its own dist (services/gateway/scripts/build-data-examples.cjs);
 * the gateway never imports this module at run time.
 */

/** The requests whose answers are the examples: path below the data root, and query. */
export const EXAMPLE_REQUESTS = {
  catalog: { path: '', query: '' },
  pack: { path: '/hr', query: '' },
  page: { path: '/hr/departments', query: 'page=1&page_size=2' },
} as const;

export interface DataExample {
  /** Below the data root (`/playground/data`), and the query without "?". */
  readonly request: { readonly path: string; readonly query: string };
  /** The answer's body, as this service renders it under `rootUrl`. */
  readonly body: unknown;
}

/** Each example's request and answer, with every link under `rootUrl` (the data API's root as a client addresses it). */
export function documentExamples(rootUrl: string): Record<keyof typeof EXAMPLE_REQUESTS, DataExample> {
  const [, pack = '', entity = ''] = EXAMPLE_REQUESTS.page.path.split('/');
  const page = renderPage(
    { pack, entity, rawQuery: EXAMPLE_REQUESTS.page.query, grantedScopes: [findPack(pack).scope], rootUrl },
    // Page-number style seals no cursor: the key signs nothing that is shown.
    randomBytes(32),
  );
  return {
    catalog: { request: EXAMPLE_REQUESTS.catalog, body: catalog(rootUrl) },
    pack: { request: EXAMPLE_REQUESTS.pack, body: describePack(EXAMPLE_REQUESTS.pack.path.slice(1), rootUrl) },
    page: { request: EXAMPLE_REQUESTS.page, body: JSON.parse(page.bodyJson.toString('utf8')) },
  };
}
