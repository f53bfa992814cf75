import type { OutgoingHttpHeaders } from 'node:http';
import { appPrincipalOf, type Principal } from '../auth/scheme';
import { PageCache, type CachedPage } from '../caches/page-cache';
import type { GatewayDeps } from '../deps';
import { matchesIfNoneMatch } from '../http/conditional';
import type { RouteContext } from '../http/context';
import { jsonBytes, type Reply } from '../http/reply';
import { route, type Route } from '../http/route';
import { whenReady } from '../maybe-async';

/**
 * Where the data API is mounted. The gateway owns this; the data service owns
 * every name below it (packs, entities, query parameters) and builds its
 * links from the root URL it is given.
 */
export const DATA_ROOT = '/playground/data';

export function dataRoutes(deps: GatewayDeps): Route[] {
  const { data } = deps.clients;
  const cache = new PageCache(deps.config.pageCache.maxBytes, deps.config.pageCache.ttlMs);
  deps.metrics?.watchPageCache(cache);
  const rootUrl = (ctx: RouteContext) => ctx.baseUrl + DATA_ROOT;

  /** The service's page, for a cache miss or a caller without the cached page's scope (the service answers 403 itself). */
  const fetchPage = async (ctx: RouteContext, cacheKey: string, principal: Principal): Promise<CachedPage> => {
    const found = await data.getPage(
      { pack: ctx.params.pack, entity: ctx.params.entity, rawQuery: ctx.rawQuery, grantedScopes: principal.scopes, rootUrl: rootUrl(ctx) },
      ctx.call(),
    );
    cache.set(cacheKey, found);
    return found;
  };

  return [
    route({
      methods: 'GET',
      path: DATA_ROOT,
      summary: 'Catalog of packs, entities, shapes and pagination styles.',
      handler: async (ctx) => jsonBytes((await data.getCatalog({ rootUrl: rootUrl(ctx) }, ctx.call())).bodyJson),
    }),
    route({
      methods: 'GET',
      path: `${DATA_ROOT}/:pack`,
      summary: "A pack's entities: fields, a sample row and counts.",
      handler: async (ctx) => jsonBytes((await data.describePack({ pack: ctx.params.pack, rootUrl: rootUrl(ctx) }, ctx.call())).bodyJson),
    }),
    route({
      methods: 'GET',
      path: `${DATA_ROOT}/:pack/:entity`,
      summary: 'A page of data in a chosen shape and pagination style (needs the pack scope).',
      // Spec, Authentication rule 1; in this order of precedence when a request presents several.
      auth: ['bearer', 'oauth2', 'jwt', 'api_key_header', 'api_key_query'],
      // Synchronous when both the credential and the page are remembered (see maybe-async.ts).
      handler: (ctx) => {
        const principal = appPrincipalOf(ctx);
        // Everything the page's bytes depend on, and nothing else (not the credential's owner).
        const cacheKey = `${ctx.params.pack}\u0000${ctx.params.entity}\u0000${ctx.baseUrl}\u0000${ctx.rawQuery}`;
        const cached = cache.get(cacheKey);
        const found = cached && principal.scopes.includes(cached.scope) ? cached : fetchPage(ctx, cacheKey, principal);
        return whenReady(found, (page) => pageReply(ctx, page));
      },
    }),
  ];
}

function pageReply(ctx: RouteContext, page: CachedPage): Reply {
  const headers: OutgoingHttpHeaders = {
    ETag: page.etag,
    // Deterministic data, but behind credentials: caches may keep it per user and must revalidate.
    'Cache-Control': 'private, no-cache',
    Vary: 'Authorization, X-Api-Key',
  };
  if (page.link) headers.Link = page.link;
  if (matchesIfNoneMatch(ctx.headers, page.etag)) return { status: 304, headers };
  return jsonBytes(page.bodyJson, 200, headers);
}
