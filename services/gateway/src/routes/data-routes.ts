import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateApp, DATA_STYLES } from '../auth/require-app';
import { PageCache, type CachedPage } from '../data-pages/page-cache';
import type { GatewayDeps } from '../deps';
import { matchesIfNoneMatch } from '../http/conditional';
import { publicBaseUrl } from '../http/public-url';
import { otherParams, queryOf, singleParam } from '../http/query';
import { localsOf } from '../http/request-context';
import { hotRoute, route, withAuth, type RouteDef } from '../http/route-table';

/** The data endpoint's own parameters; anything else (e.g. api_key) is kept in next links. */
const PAGE_PARAMS = ['shape', 'page', 'page_size', 'offset', 'limit', 'cursor', 'pageToken', 'paginate'] as const;
const KNOWN = new Set<string>(PAGE_PARAMS);

function sendJsonBytes(res: ServerResponse, body: Uint8Array): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.byteLength);
  res.end(body);
}

export function dataRoutes(deps: GatewayDeps): RouteDef[] {
  const { data } = deps.clients;
  const cache = new PageCache(deps.config.pageCache.maxBytes, deps.config.pageCache.ttlMs);

  const page = async (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => {
    const auth = await authenticateApp(deps, req, res, DATA_STYLES);
    const query = queryOf(req, res);
    const values = Object.fromEntries(PAGE_PARAMS.map((name) => [name, singleParam(query, name)]));
    const baseUrl = publicBaseUrl(req, deps.config);
    const passthroughQuery = otherParams(query, KNOWN);
    const key = pageCacheKey(params, baseUrl, values, passthroughQuery);

    let found: CachedPage | undefined = cache.get(key);
    if (!found || !auth.principal.scopes.includes(found.scope)) {
      // A miss, or a caller without the scope: the data service decides (and answers 403 itself).
      found = await data.getPage(
        {
          pack: params.pack,
          entity: params.entity,
          shape: values.shape,
          page: values.page,
          pageSize: values.page_size,
          offset: values.offset,
          limit: values.limit,
          cursor: values.cursor,
          pageToken: values.pageToken,
          paginate: values.paginate,
          grantedScopes: auth.principal.scopes,
          baseUrl,
          passthroughQuery,
        },
        { requestId: localsOf(res).requestId, signal: closedSignal(res) },
      );
      cache.set(key, found);
    }
    const notModified = matchesIfNoneMatch(req, found.etag);
    // One writeHead: on this route every setHeader call is a measurable share of the request.
    res.writeHead(notModified ? 304 : 200, {
      ETag: found.etag,
      // Deterministic data, but behind credentials: caches may keep it per user and must revalidate.
      'Cache-Control': 'private, no-cache',
      Vary: 'Authorization, X-Api-Key',
      ...(found.link ? { Link: found.link } : {}),
      ...(notModified ? {} : { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': found.bodyJson.byteLength }),
    });
    res.end(notModified ? undefined : found.bodyJson);
  };

  return [
    route('GET', '/playground/data', 'Catalog of packs, entities, shapes and pagination styles.', async (req, res) => {
      const { bodyJson } = await data.getCatalog({ baseUrl: publicBaseUrl(req, deps.config) }, { requestId: res.locals.requestId });
      sendJsonBytes(res, bodyJson);
    }),
    route('GET', '/playground/data/:pack', "A pack's entities: fields, a sample row and counts.", async (req, res) => {
      const { bodyJson } = await data.describePack({ pack: String(req.params.pack), baseUrl: publicBaseUrl(req, deps.config) }, { requestId: res.locals.requestId });
      sendJsonBytes(res, bodyJson);
    }),
    withAuth(
      hotRoute('/playground/data/:pack/:entity', 'A page of data in a chosen shape and pagination style (needs the pack scope).', page),
      'API key (x-api-key or api_key), app bearer token, or OAuth 2.0 access token; the pack scope',
    ),
  ];
}

/** Everything a page's bytes depend on, and nothing else (not the credential's owner). */
function pageCacheKey(params: Record<string, string>, baseUrl: string, values: Record<string, string | undefined>, passthrough: Record<string, string>): string {
  let key = `${params.pack}\u0000${params.entity}\u0000${baseUrl}`;
  for (const name of PAGE_PARAMS) key += `\u0000${values[name] ?? '\u0001'}`;
  for (const name of Object.keys(passthrough).sort()) key += `\u0000${name}=${passthrough[name]}`;
  return key;
}

/** Aborts when the client goes away before the answer, so the service call is cancelled too. */
function closedSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
