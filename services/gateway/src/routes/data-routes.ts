import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { authenticateApp, DATA_STYLES } from '../auth/require-app';
import { PageCache, type CachedPage } from '../data-pages/page-cache';
import type { GatewayDeps } from '../deps';
import { matchesIfNoneMatch } from '../http/conditional';
import { publicBaseUrl } from '../http/public-url';
import { queryOf, splitParams } from '../http/query';
import { localsOf } from '../http/request-context';
import { hotRoute, route, withAuth, type HotHandler, type HotResponse, type RouteDef } from '../http/route-table';
import { whenReady } from '../maybe-async';

/** The data endpoint's own parameters; anything else (e.g. api_key) is kept in next links. */
const PAGE_PARAMS = ['shape', 'page', 'page_size', 'offset', 'limit', 'cursor', 'pageToken', 'paginate'] as const;
type PageParam = (typeof PAGE_PARAMS)[number];
const PAGE_PARAM_SET: ReadonlySet<PageParam> = new Set(PAGE_PARAMS);

function sendJsonBytes(res: ServerResponse, body: Uint8Array): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.byteLength);
  res.end(body);
}

export function dataRoutes(deps: GatewayDeps): RouteDef[] {
  const { data } = deps.clients;
  const cache = new PageCache(deps.config.pageCache.maxBytes, deps.config.pageCache.ttlMs);

  /** The service's page, for a cache miss or a caller without the cached page's scope (the service answers 403 itself). */
  const fetchPage = async (res: ServerResponse, request: PageRequest, scopes: string[]): Promise<CachedPage> => {
    const { params, own } = request;
    const found = await data.getPage(
      {
        pack: params.pack,
        entity: params.entity,
        shape: own.shape,
        page: own.page,
        pageSize: own.page_size,
        offset: own.offset,
        limit: own.limit,
        cursor: own.cursor,
        pageToken: own.pageToken,
        paginate: own.paginate,
        grantedScopes: scopes,
        baseUrl: request.baseUrl,
        passthroughQuery: request.passthroughQuery,
      },
      { requestId: localsOf(res).requestId, signal: closedSignal(res) },
    );
    cache.set(request.cacheKey, found);
    return found;
  };

  // Synchronous when both the credential and the page are cached (see maybe-async.ts).
  const page: HotHandler = (req, res, params) =>
    whenReady(authenticateApp(deps, req, res, DATA_STYLES), (auth) => {
      const request = readPageRequest(req, res, params, deps);
      const cached = cache.get(request.cacheKey);
      const found = cached && auth.principal.scopes.includes(cached.scope) ? cached : fetchPage(res, request, auth.principal.scopes);
      return whenReady(found, (p) => pageResponse(req, p));
    });

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

interface PageRequest {
  params: Record<string, string>;
  own: Partial<Record<PageParam, string>>;
  baseUrl: string;
  /** Parameters the page does not read (e.g. api_key), kept in its next links. */
  passthroughQuery: Record<string, string>;
  /** Everything the page's bytes depend on, and nothing else (not the credential's owner). */
  cacheKey: string;
}

function readPageRequest(req: IncomingMessage, res: ServerResponse, params: Record<string, string>, deps: GatewayDeps): PageRequest {
  const { own, others } = splitParams(queryOf(req, res), PAGE_PARAM_SET);
  const baseUrl = publicBaseUrl(req, deps.config);
  let cacheKey = `${params.pack}\u0000${params.entity}\u0000${baseUrl}`;
  for (const name of PAGE_PARAMS) cacheKey += `\u0000${own[name] ?? '\u0001'}`;
  for (const name of Object.keys(others).sort()) cacheKey += `\u0000${name}=${others[name]}`;
  return { params, own, baseUrl, passthroughQuery: others, cacheKey };
}

function pageResponse(req: IncomingMessage, page: CachedPage): HotResponse {
  const notModified = matchesIfNoneMatch(req, page.etag);
  const headers: OutgoingHttpHeaders = {
    ETag: page.etag,
    // Deterministic data, but behind credentials: caches may keep it per user and must revalidate.
    'Cache-Control': 'private, no-cache',
    Vary: 'Authorization, X-Api-Key',
  };
  if (page.link) headers.Link = page.link;
  if (notModified) return { status: 304, headers };
  headers['Content-Type'] = 'application/json; charset=utf-8';
  headers['Content-Length'] = page.bodyJson.byteLength;
  return { status: 200, headers, body: page.bodyJson };
}

/** Aborts when the client goes away before the answer, so the service call is cancelled too. */
function closedSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
