import type { OutgoingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { dataApi } from '@sandbox/contracts';
import { appPrincipalOf, type Principal } from '../../auth/scheme';
import type { CachedPage } from '../../caches/page-cache';
import type { GatewayDeps } from '../../deps';
import { matchesIfNoneMatch } from './conditional';
import type { RouteContext } from '../../http/context';
import type { Contract } from '../../http/contract';
import { jsonBytes, type Reply } from '../../http/reply';
import { routeOf, type Route } from '../../http/route';
import { whenReady } from '../../maybe-async';

/** Every row here is for data (http/route-family.ts). */
const route = routeOf('data');

/**
 * Where the data API is mounted. The gateway owns this; the data service owns
 * every name below it (packs, entities, query parameters) and builds its
 * links from the root URL it is given.
 */
export const DATA_ROOT = '/playground/data';

// ---- schemas -------------------------------------------------------------------
// The data service owns every rule about these values and refuses them itself
// (checkedByService); the names, enums, defaults and words come from the same
// contract module it validates with (packages/contracts/src/data-api.ts).

const { PAGE_PARAMETERS, SHAPES, PAGINATE_VALUES, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, STYLE_RULES, PAGINATION_FIELDS, SHAPE_DESCRIPTIONS } = dataApi;

const name = (example: string) => z.string().meta({ example });
const wholeNumber = (minimum: 0 | 1, description: string, example: number) => z.coerce.number().int().min(minimum).optional().meta({ description, example });
const pageQueryParameters = {
  shape: z
    .enum(SHAPES)
    .optional()
    .meta({ description: `How rows are laid out (default ${dataApi.DEFAULT_SHAPE}). ${SHAPES.map((s) => `${s}: ${SHAPE_DESCRIPTIONS[s]}`).join(' ')}` }),
  page: wholeNumber(1, 'Page-number style: the page, from 1.', 2),
  page_size: wholeNumber(
    1,
    `Rows per page (default ${DEFAULT_PAGE_SIZE}; above ${MAX_PAGE_SIZE} it is clamped to ${MAX_PAGE_SIZE} and the page says so).`,
    DEFAULT_PAGE_SIZE,
  ),
  offset: wholeNumber(0, 'Offset style: index of the first row, from 0.', 100),
  limit: wholeNumber(1, `Offset style: rows per page (default ${DEFAULT_PAGE_SIZE}; clamped above ${MAX_PAGE_SIZE}).`, DEFAULT_PAGE_SIZE),
  cursor: z.string().optional().meta({ description: 'Cursor and link styles: the position pagination.next carries; send it back unchanged.' }),
  pageToken: z.string().optional().meta({ description: 'Token style: the nextPageToken of the previous page.' }),
  paginate: z.enum(PAGINATE_VALUES).optional().meta({ description: 'cursor, token or link style; omit it for page or offset style.' }),
} satisfies Record<dataApi.PageParameter, z.ZodType>;
const pageQuery = z.object(pageQueryParameters);
// Every name the data service reads is documented, and nothing else.
if (Object.keys(pageQueryParameters).sort().join() !== [...PAGE_PARAMETERS].sort().join())
  throw new Error('data-routes: page parameters out of step with the data API contract');

const packPath = z.object({ pack: name('hr').meta({ description: 'A pack name from the catalog.' }) });
const entityPath = packPath.extend({ entity: name('employees').meta({ description: "An entity of the pack, from the pack's description." }) });

const nullableUrl = z.string().nullable();
const paginationObject = z
  .object({
    style: z.enum(['page', 'offset', ...PAGINATE_VALUES]),
    total: z.number().int(),
    page_size: z.number().int(),
    page_size_clamped: z.boolean(),
    note: z.string().optional(),
    page: z.number().int().optional(),
    total_pages: z.number().int().optional(),
    offset: z.number().int().optional(),
    limit: z.number().int().optional(),
    returned: z.number().int(),
    has_more: z.boolean(),
    next: nullableUrl,
    next_url: nullableUrl,
  })
  .meta({
    id: 'Pagination',
    description: Object.entries(PAGINATION_FIELDS)
      .map(([field, words]) => `${field}: ${words}`)
      .join(' '),
  });
const pageSchema = z
  .object({
    pack: z.string(),
    entity: z.string(),
    shape: z.enum(SHAPES),
    nextLink: z.string().optional().meta({ description: 'Absolute URL of the next page, in every style; absent on the last page.' }),
    nextPageToken: z.string().optional().meta({ description: 'Token style only: send it back as pageToken.' }),
    pagination: paginationObject,
    data: z.array(z.unknown()).meta({ description: 'The rows, laid out as the shape says (objects, or arrays for list-of-lists).' }),
  })
  // Its example is the data service's own answer, added by the document builder (openapi/data-examples.ts).
  .meta({ id: 'Page', description: 'A page of data.' });
const catalogSchema = z
  .looseObject({
    dataset_version: z.number().int(),
    reference_date: z.string(),
    packs: z.array(
      z.looseObject({
        name: z.string(),
        scope: z.string(),
        description: z.string(),
        url: z.string(),
        entities: z.array(z.looseObject({ name: z.string(), rows: z.number().int(), url: z.string() })),
      }),
    ),
    shapes: z.array(z.looseObject({ name: z.enum(SHAPES), default: z.boolean(), description: z.string() })),
    pagination: z.looseObject({ default_page_size: z.number().int(), max_page_size: z.number().int(), rules: z.array(z.string()) }),
  })
  .meta({ id: 'DataCatalog' });
const packSchema = z
  .looseObject({
    name: z.string(),
    scope: z.string(),
    description: z.string(),
    entities: z.array(z.looseObject({ name: z.string(), rows: z.number().int(), fields: z.array(z.unknown()) })),
  })
  .meta({ id: 'DataPack' });

const catalogContract = { responses: { 200: { description: 'Packs, entities, shapes and pagination styles.', schema: catalogSchema } } };
const packContract = { params: packPath, responses: { 200: { description: "The pack's entities: fields, a sample row, counts.", schema: packSchema } } };
const pageContract = {
  params: entityPath,
  query: pageQuery,
  // The data service refuses every bad value, conflicting styles and stale cursors itself.
  checkedByService: ['query'],
  description: `Five pagination styles over the same rows. ${STYLE_RULES.join(' ')}`,
  responses: {
    200: {
      description: 'A page of data.',
      schema: pageSchema,
      headers: {
        ETag: { description: 'Strong tag of this page: send it back in If-None-Match.' },
        Link: { description: 'Link style only: <next page>; rel="next".' },
      },
    },
    304: { description: 'Not modified: the page is the one your If-None-Match names.', headers: { ETag: { description: 'The same tag.' } } },
  },
  refusals: { 403: "The app's credential lacks the pack's scope; WWW-Authenticate names it." },
} satisfies Contract;

/**
 * Real values for the data routes' path parameters, from the data service's
 * own catalog as it answers now: its first pack and that pack's first
 * entity. For the GET /playground map, which lists a clickable URL beside
 * each template; empty when the service cannot say (the map then lists the
 * templates alone rather than fail).
 */
export async function dataPathExamples(deps: GatewayDeps, ctx: RouteContext): Promise<Record<string, string>> {
  try {
    const { bodyJson } = await deps.clients.data.getCatalog({ rootUrl: ctx.baseUrl + DATA_ROOT }, ctx.call());
    const pack = (JSON.parse(Buffer.from(bodyJson).toString('utf8')) as { packs?: { name: string; entities?: { name: string }[] }[] }).packs?.[0];
    const entity = pack?.entities?.[0];
    return pack && entity ? { pack: pack.name, entity: entity.name } : {};
  } catch (error) {
    deps.logger.warn({ requestId: ctx.requestId, err: (error as Error).message }, 'no data catalog for the map examples');
    return {};
  }
}

/**
 * The data rows. Building them keeps nothing and calls nothing: the page
 * cache is the gateway's (composition.ts makes it), and the client and the
 * cache are read from deps when a request is served.
 */
export function dataRoutes(deps: GatewayDeps): Route[] {
  const rootUrl = (ctx: RouteContext) => ctx.baseUrl + DATA_ROOT;

  /** The service's page, for a cache miss or a caller without the cached page's scope (the service answers 403 itself). */
  const fetchPage = async (ctx: RouteContext, cacheKey: string, principal: Principal): Promise<CachedPage> => {
    const found = await deps.clients.data.getPage(
      { pack: ctx.params.pack, entity: ctx.params.entity, rawQuery: ctx.rawQuery, grantedScopes: principal.scopes, rootUrl: rootUrl(ctx) },
      ctx.call(),
    );
    deps.pageCache.set(cacheKey, found);
    return found;
  };

  return [
    route({
      methods: 'GET',
      path: DATA_ROOT,
      summary: 'Catalog of packs, entities, shapes and pagination styles.',
      contract: catalogContract,
      handler: async (ctx) => jsonBytes((await deps.clients.data.getCatalog({ rootUrl: rootUrl(ctx) }, ctx.call())).bodyJson),
    }),
    route({
      methods: 'GET',
      path: `${DATA_ROOT}/:pack`,
      summary: "A pack's entities: fields, a sample row and counts.",
      contract: packContract,
      handler: async (ctx) => jsonBytes((await deps.clients.data.describePack({ pack: ctx.params.pack, rootUrl: rootUrl(ctx) }, ctx.call())).bodyJson),
    }),
    route({
      methods: 'GET',
      path: `${DATA_ROOT}/:pack/:entity`,
      summary: 'A page of data in a chosen shape and pagination style (needs the pack scope).',
      contract: pageContract,
      // Spec, Authentication rule 1; in this order of precedence when a request presents several.
      auth: ['bearer', 'oauth2', 'jwt', 'api_key_header', 'api_key_query'],
      // Synchronous when both the credential and the page are remembered (see maybe-async.ts).
      handler: (ctx) => {
        const principal = appPrincipalOf(ctx);
        // Everything the page's bytes depend on, and nothing else (not the credential's owner).
        const cacheKey = `${ctx.params.pack}\u0000${ctx.params.entity}\u0000${ctx.baseUrl}\u0000${ctx.rawQuery}`;
        const cached = deps.pageCache.get(cacheKey);
        const found = cached && principal.scopes.includes(cached.scope) ? cached : fetchPage(ctx, cacheKey, principal);
        return whenReady(found, (page) => pageReply(ctx, page));
      },
    }),
  ];
}

function pageReply(ctx: RouteContext, page: CachedPage): Reply {
  notePaging(ctx, page);
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

/** Facts of a page request for the exercises (docs/exercises.md): how it paged, whether it reached the end, and of how many rows. */
function notePaging(ctx: RouteContext, page: CachedPage): void {
  if (!page.paginationStyle) return;
  ctx.fact('pagination', page.paginationStyle);
  if (page.lastPage) ctx.fact('last_page', 'true');
  ctx.fact('entity_rows', String(page.entityRows));
}
