import { dataApi } from '@sandbox/contracts';
import { invalidArgument } from './errors';

/**
 * The query parameters the data endpoint reads, named by the API's contract
 * (packages/contracts/src/data-api.ts; the gateway documents them from the
 * same list and forwards the raw query). Every other parameter, e.g.
 * api_key, passes through into next links.
 */
export const { PAGE_PARAMETERS } = dataApi;
export type PageParameter = dataApi.PageParameter;

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
