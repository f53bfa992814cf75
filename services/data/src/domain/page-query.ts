import { invalidArgument } from './errors';

/**
 * The query parameters the data endpoint reads: the one list of their names
 * (the gateway forwards the raw query and knows none of them). Every other
 * parameter, e.g. api_key, passes through into next links.
 */
export const PAGE_PARAMETERS = ['shape', 'page', 'page_size', 'offset', 'limit', 'cursor', 'pageToken', 'paginate'] as const;
export type PageParameter = (typeof PAGE_PARAMETERS)[number];

/** The page parameters as the client sent them, by their query names (absent when not sent). */
export type PagingQuery = { readonly [P in PageParameter]?: string };

export interface PageQuery {
  readonly paging: PagingQuery;
  /**
   * The first value of every other parameter. A Map, so that any name a client
   * sends (constructor, __proto__) is an ordinary key.
   */
  readonly passthrough: ReadonlyMap<string, string>;
}

const IS_PAGE_PARAMETER: ReadonlySet<string> = new Set(PAGE_PARAMETERS);

/**
 * Splits the raw query string (without "?"). A page parameter given twice is
 * refused by name rather than one value silently winning; a repeated other
 * parameter keeps its first value, as a client's own repeats are not ours to judge.
 */
export function readPageQuery(rawQuery: string): PageQuery {
  const paging: { [P in PageParameter]?: string } = {};
  const passthrough = new Map<string, string>();
  new URLSearchParams(rawQuery).forEach((value, name) => {
    if (IS_PAGE_PARAMETER.has(name)) {
      const parameter = name as PageParameter;
      if (paging[parameter] !== undefined) throw invalidArgument('invalid_parameter', `${name} must be given once.`);
      paging[parameter] = value;
    } else if (!passthrough.has(name)) {
      passthrough.set(name, value);
    }
  });
  return { paging, passthrough };
}
