/*
 * The data API's public vocabulary over HTTP: query parameters, shapes,
 * pagination styles, sizes, and the fields of a page's pagination object.
 * Like the .proto files, this is a contract between services: the data
 * service validates and renders with these names and values, and the
 * gateway's OpenAPI document describes the data endpoints with the same
 * ones, so the two cannot drift. Only names and words live here; every rule
 * about values stays in the data service (services/data/src/domain).
 */

/** The query parameters the page endpoint reads; every other one passes through into next links. */
export const PAGE_PARAMETERS = ['shape', 'page', 'page_size', 'offset', 'limit', 'cursor', 'pageToken', 'paginate'] as const;
export type PageParameter = (typeof PAGE_PARAMETERS)[number];

export const DEFAULT_PAGE_SIZE = 50;
/** A page_size or limit above it is clamped to it (and the page says so), not refused. */
export const MAX_PAGE_SIZE = 1000;

export const PAGINATE_VALUES = ['cursor', 'token', 'link'] as const;
export type Paginate = (typeof PAGINATE_VALUES)[number];
export type PaginationStyle = 'page' | 'offset' | Paginate;

export const SHAPES = ['flat', 'list-of-lists', 'nested', 'nested-list'] as const;
export type Shape = (typeof SHAPES)[number];
export const DEFAULT_SHAPE: Shape = 'flat';

export const SHAPE_DESCRIPTIONS: Record<Shape, string> = {
  flat: 'The default. An array of plain objects, one per row, one key per field.',
  'list-of-lists':
    'An array of arrays. The first is the header (the field names), repeated on every page so each page stands alone; then one array of values per row, in header order.',
  nested:
    "One object per row with related fields grouped into sub-objects, e.g. an employee's department: {id, name}. The pack description gives each field's place.",
  'nested-list':
    'Parents carrying an array of children. An entity with children (e.g. cricket matches) gives one object per row with all its child rows (its innings). ' +
    "A leaf entity (e.g. stocks candles) gathers the page's consecutive rows under their parent row (the ticker); a group cut by the end of a page continues on the next. " +
    "Paging always counts the entity's own rows, so total and page_size mean the same in every shape.",
};

/** How a client mixing styles is answered; published in the catalog and the OpenAPI document. */
export const STYLE_RULES = [
  'One pagination style per request: page and page_size; or offset and limit; or paginate (with cursor or pageToken when continuing).',
  'cursor or pageToken without paginate selects the cursor or token style; cursor goes with paginate=cursor or paginate=link, pageToken with paginate=token.',
  'Combining styles (e.g. page with cursor, offset with page, cursor with pageToken, limit with page_size) is rejected with 400 conflicting_parameters rather than guessed at.',
  'With a cursor or pageToken, shape and page_size may be omitted (the cursor remembers them); if sent they must match it.',
  `page_size and limit default to ${DEFAULT_PAGE_SIZE}; a value above ${MAX_PAGE_SIZE} is clamped to ${MAX_PAGE_SIZE} and the page says so (pagination.page_size_clamped and pagination.note).`,
  'A page past the end is empty, with no next link.',
] as const;

/** The fields of a page's `pagination` object, and what each means. */
export const PAGINATION_FIELDS: Readonly<Record<string, string>> = {
  style: 'The pagination style of this page: page, offset, cursor, token or link.',
  total: 'Rows in the entity (not in this page).',
  page_size: 'Rows per page after clamping (in offset style, the limit).',
  page_size_clamped: `True when the page_size or limit sent was above ${MAX_PAGE_SIZE} and was lowered to it.`,
  note: 'Present only when clamped: says what was requested and what is returned.',
  page: 'Page-number style only: this page number, from 1.',
  total_pages: 'Page-number style only: pages at this page_size.',
  offset: 'Offset style only: index of the first row of this page, from 0.',
  limit: 'Offset style only: rows per page after clamping.',
  returned: 'Rows of the entity in this page (in nested-list, the rows inside the groups).',
  has_more: 'True while more rows follow this page.',
  next: 'Relative URL (path and query) of the next page; null on the last page.',
  next_url: 'Absolute URL of the next page; null on the last page.',
};
