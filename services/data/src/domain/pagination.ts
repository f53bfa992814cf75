import { dataApi } from '@sandbox/contracts';
import { DATASET_VERSION } from './dataset';
import type { EntityDefinition } from './entity';
import { quoteInput } from '@sandbox/runtime';
import { invalidArgument } from './errors';
import type { NextLink } from './next-link';
import type { PageParameter, PagingQuery } from './page-query';
import { openPosition, positionError, sealPosition, type PositionKind, type SigningKey } from './page-token';
import { ENTITIES, entityOrdinal } from './packs';
import { parseShape, shapeIndex, SHAPES, type Shape } from './shapes';

// Sizes, styles and the words that explain them are the API's contract (packages/contracts/src/data-api.ts).
export const { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PAGINATE_VALUES, STYLE_RULES, PAGINATION_FIELDS } = dataApi;
type Paginate = dataApi.Paginate;
export type PaginationStyle = dataApi.PaginationStyle;

export interface PagePlan {
  readonly style: PaginationStyle;
  readonly shape: Shape;
  /** First row of the page; at or past the end gives an empty page. */
  readonly start: number;
  /** Rows per page, after clamping. */
  readonly size: number;
  /** Page number (page style only). */
  readonly page: number | null;
  /** Set when the requested page_size or limit was above the maximum. */
  readonly clamped: { readonly parameter: 'page_size' | 'limit'; readonly requested: number } | null;
}

const MAX_DIGITS = 15;

function wholeNumber(parameter: string, raw: string, minimum: 0 | 1): number {
  const expected = minimum === 0 ? 'a whole number, 0 or more' : 'a whole number, 1 or more';
  if (!/^[0-9]+$/.test(raw)) throw invalidArgument('invalid_parameter', `The ${parameter} parameter must be ${expected}; got ${quoteInput(raw)}.`);
  if (raw.length > MAX_DIGITS) throw invalidArgument('invalid_parameter', `The ${parameter} parameter is too large; got ${quoteInput(raw)}.`);
  const value = Number(raw);
  if (value < minimum) throw invalidArgument('invalid_parameter', `The ${parameter} parameter must be ${expected}; got ${quoteInput(raw)}.`);
  return value;
}

function rowsPerPage(parameter: 'page_size' | 'limit', raw: string | undefined): { size: number; clamped: PagePlan['clamped'] } {
  if (raw === undefined) return { size: DEFAULT_PAGE_SIZE, clamped: null };
  const requested = wholeNumber(parameter, raw, 1);
  return requested > MAX_PAGE_SIZE ? { size: MAX_PAGE_SIZE, clamped: { parameter, requested } } : { size: requested, clamped: null };
}

function conflict(first: string, second: string): Error {
  return invalidArgument(
    'conflicting_parameters',
    `${first} cannot be combined with ${second}: a request uses one pagination style (page and page_size, offset and limit, or paginate with cursor or pageToken).`,
  );
}

function parsePaginate(raw: string | undefined): Paginate | undefined {
  if (raw === undefined || (PAGINATE_VALUES as readonly string[]).includes(raw)) return raw as Paginate | undefined;
  throw invalidArgument(
    'invalid_parameter',
    `Unknown paginate value ${quoteInput(raw)}. Allowed values of paginate: ${PAGINATE_VALUES.join(', ')} (omit it for page or offset pagination).`,
  );
}

/** Decides style, shape and the rows of the page from its parameters; every refusal of their values comes from here (a repeated one, from readPageQuery). */
export function planPage(query: PagingQuery, entity: EntityDefinition, key: SigningKey): PagePlan {
  const paginate = parsePaginate(query.paginate);
  const { cursor, pageToken } = query;
  if (cursor !== undefined && pageToken !== undefined) throw conflict('cursor', 'pageToken');
  if (paginate === 'token' && cursor !== undefined) throw conflict('cursor', 'paginate=token');
  if (paginate !== undefined && paginate !== 'token' && pageToken !== undefined) throw conflict('pageToken', `paginate=${paginate}`);
  const opaque = paginate !== undefined ? `paginate=${paginate}` : cursor !== undefined ? 'cursor' : pageToken !== undefined ? 'pageToken' : null;
  for (const [name, value] of [
    ['page', query.page],
    ['offset', query.offset],
    ['limit', query.limit],
  ] as const) {
    if (opaque !== null && value !== undefined) throw conflict(name, opaque);
  }
  if (query.page !== undefined && query.offset !== undefined) throw conflict('page', 'offset');
  if (query.page !== undefined && query.limit !== undefined) throw conflict('page', 'limit');
  if (query.limit !== undefined && query.page_size !== undefined) throw conflict('limit', 'page_size');

  const style: PaginationStyle =
    paginate ??
    (cursor !== undefined ? 'cursor' : pageToken !== undefined ? 'token' : query.offset !== undefined || query.limit !== undefined ? 'offset' : 'page');

  if (style === 'offset') {
    const { size, clamped } = rowsPerPage(query.limit !== undefined ? 'limit' : 'page_size', query.limit ?? query.page_size);
    const start = query.offset === undefined ? 0 : wholeNumber('offset', query.offset, 0);
    return { style, shape: parseShape(query.shape), start, size, page: null, clamped };
  }
  const { size, clamped } = rowsPerPage('page_size', query.page_size);
  if (style === 'page') {
    const page = query.page === undefined ? 1 : wholeNumber('page', query.page, 1);
    return { style, shape: parseShape(query.shape), start: (page - 1) * size, size, page, clamped };
  }
  const kind: PositionKind = style === 'token' ? 'token' : 'cursor';
  const value = kind === 'token' ? pageToken : cursor;
  if (value === undefined) return { style, shape: parseShape(query.shape), start: 0, size, page: null, clamped };

  const position = openPosition(value, kind, key);
  if (position.datasetVersion !== DATASET_VERSION) {
    throw positionError(kind, `belongs to dataset version ${position.datasetVersion}, and the data is now version ${DATASET_VERSION}`);
  }
  if (position.entity !== entityOrdinal(entity)) {
    const issuedFor = ENTITIES[position.entity];
    throw positionError(kind, `was issued for ${issuedFor ? `${issuedFor.pack}/${issuedFor.name}` : 'another entity'}, not ${entity.pack}/${entity.name}`);
  }
  const shape = SHAPES[position.shape];
  if (shape === undefined) throw positionError(kind, 'names a shape this service does not know');
  if (query.shape !== undefined && parseShape(query.shape) !== shape) {
    throw positionError(kind, `was issued for shape=${shape}, but shape=${query.shape} was sent: keep the shape while paging`);
  }
  if (query.page_size !== undefined && size !== position.pageSize) {
    throw positionError(kind, `was issued for page_size=${position.pageSize}, but page_size=${query.page_size} was sent: keep the page size while paging`);
  }
  return { style, shape, start: position.offset, size: position.pageSize, page: null, clamped };
}

export interface NextPage {
  /** Paging parameters of the next request, in link order. */
  readonly paging: ReadonlyArray<readonly [PageParameter, string]>;
  /** The nextPageToken (token style only). */
  readonly pageToken: string | null;
}

/** What a client sends to get the page after `plan`, in the same style, shape and size. */
export function nextPage(plan: PagePlan, entity: EntityDefinition, key: SigningKey): NextPage {
  const next = plan.start + plan.size;
  const shape: readonly [PageParameter, string] = ['shape', plan.shape];
  const size = String(plan.size);
  switch (plan.style) {
    case 'page':
      return { paging: [['page', String(plan.page! + 1)], ['page_size', size], shape], pageToken: null };
    case 'offset':
      return { paging: [['offset', String(next)], ['limit', size], shape], pageToken: null };
    case 'cursor':
    case 'link':
    case 'token': {
      const kind: PositionKind = plan.style === 'token' ? 'token' : 'cursor';
      const value = sealPosition(
        { kind, datasetVersion: DATASET_VERSION, entity: entityOrdinal(entity), shape: shapeIndex(plan.shape), pageSize: plan.size, offset: next },
        key,
      );
      return {
        paging: [['paginate', plan.style], [kind === 'token' ? 'pageToken' : 'cursor', value], ['page_size', size], shape],
        pageToken: kind === 'token' ? value : null,
      };
    }
  }
}

/** The body's pagination object; its field names are documented in PAGINATION_FIELDS. */
export function paginationInfo(plan: PagePlan, total: number, returned: number, next: NextLink | null): Record<string, unknown> {
  const info: Record<string, unknown> = { style: plan.style, total, page_size: plan.size, page_size_clamped: plan.clamped !== null };
  if (plan.clamped) {
    info['note'] = `${plan.clamped.parameter} ${plan.clamped.requested} is above the maximum of ${MAX_PAGE_SIZE}; pages of ${MAX_PAGE_SIZE} rows are returned.`;
  }
  if (plan.style === 'page') {
    info['page'] = plan.page;
    info['total_pages'] = Math.ceil(total / plan.size);
  } else if (plan.style === 'offset') {
    info['offset'] = plan.start;
    info['limit'] = plan.size;
  }
  info['returned'] = returned;
  info['has_more'] = next !== null;
  info['next'] = next ? next.relative : null;
  info['next_url'] = next ? next.absolute : null;
  return info;
}
