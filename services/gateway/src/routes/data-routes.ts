import type { Response } from 'express';
import { DATA_STYLES, requireApp } from '../auth/require-app';
import type { GatewayDeps } from '../deps';
import { matchesIfNoneMatch } from '../http/conditional';
import { publicBaseUrl } from '../http/public-url';
import { otherQueryParams, singleQueryParam } from '../http/query';
import { route, withAuth, type RouteDef } from '../http/route-table';

/** The data endpoint's own parameters; anything else (e.g. api_key) is kept in next links. */
const PAGE_PARAMS = ['shape', 'page', 'page_size', 'offset', 'limit', 'cursor', 'pageToken', 'paginate'] as const;
const KNOWN = new Set<string>(PAGE_PARAMS);

function sendJsonBytes(res: Response, body: Uint8Array): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.byteLength);
  res.end(body);
}

export function dataRoutes(deps: GatewayDeps): RouteDef[] {
  const { data } = deps.clients;
  const base = (req: Parameters<typeof publicBaseUrl>[0]) => publicBaseUrl(req, deps.config);

  return [
    route('GET', '/playground/data', 'Catalog of packs, entities, shapes and pagination styles.', async (req, res) => {
      const { bodyJson } = await data.getCatalog({ baseUrl: base(req) }, { requestId: res.locals.requestId });
      sendJsonBytes(res, bodyJson);
    }),
    route('GET', '/playground/data/:pack', "A pack's entities: fields, a sample row and counts.", async (req, res) => {
      const { bodyJson } = await data.describePack({ pack: String(req.params.pack), baseUrl: base(req) }, { requestId: res.locals.requestId });
      sendJsonBytes(res, bodyJson);
    }),
    withAuth(
      route(
        'GET',
        '/playground/data/:pack/:entity',
        'A page of data in a chosen shape and pagination style (needs the pack scope).',
        requireApp(deps, DATA_STYLES),
        async (req, res) => {
          const query = Object.fromEntries(PAGE_PARAMS.map((name) => [name, singleQueryParam(req, name)]));
          const { bodyJson, etag, link } = await data.getPage(
            {
              pack: String(req.params.pack),
              entity: String(req.params.entity),
              shape: query.shape,
              page: query.page,
              pageSize: query.page_size,
              offset: query.offset,
              limit: query.limit,
              cursor: query.cursor,
              pageToken: query.pageToken,
              paginate: query.paginate,
              grantedScopes: res.locals.auth.principal.scopes,
              baseUrl: base(req),
              passthroughQuery: otherQueryParams(req, KNOWN),
            },
            { requestId: res.locals.requestId, signal: closedSignal(res) },
          );
          if (link) res.setHeader('Link', link);
          res.setHeader('ETag', etag);
          // Deterministic data, but behind credentials: caches may keep it per user and must revalidate.
          res.setHeader('Cache-Control', 'private, no-cache');
          if (matchesIfNoneMatch(req, etag)) {
            res.status(304).end();
            return;
          }
          sendJsonBytes(res, bodyJson);
        },
      ),
      'API key (x-api-key or api_key), app bearer token, or OAuth 2.0 access token; the pack scope',
    ),
  ];
}

/** Aborts when the client goes away before the answer, so the service call is cancelled too. */
function closedSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
