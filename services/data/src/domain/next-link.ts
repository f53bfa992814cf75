/** Query parameters the data endpoint interprets; a passthrough parameter may never override them. */
export const PAGING_PARAMETERS = new Set(['shape', 'page', 'page_size', 'offset', 'limit', 'cursor', 'pageToken', 'paginate']);

export interface LinkTarget {
  /** Absolute base of public URLs, e.g. "https://sandbox.example/prefix". */
  readonly baseUrl: string;
  /** Path of the resource under the base, e.g. "/playground/data/stocks/candles". */
  readonly path: string;
  /** Other query parameters the client sent (e.g. api_key), repeated in every next link. */
  readonly passthrough: Readonly<Record<string, string>>;
}

export interface NextLink {
  /** Path and query, e.g. for pagination.next. */
  readonly relative: string;
  /** Base, path and query: nextLink, pagination.next_url and the Link header. */
  readonly absolute: string;
}

const encode = (name: string, value: string) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;

export function buildNextLink(target: LinkTarget, paging: ReadonlyArray<readonly [string, string]>): NextLink {
  const parts = paging.map(([name, value]) => encode(name, value));
  // Sorted so the same request always renders the same bytes (and ETag).
  for (const name of Object.keys(target.passthrough).sort()) {
    if (!PAGING_PARAMETERS.has(name)) parts.push(encode(name, target.passthrough[name]!));
  }
  const relative = `${target.path}?${parts.join('&')}`;
  return { relative, absolute: target.baseUrl.replace(/\/+$/, '') + relative };
}
