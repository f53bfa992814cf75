import type { PageParameter } from './page-query';
import { entityUrl, pathAndQuery } from './urls';

export interface LinkTarget {
  /** Absolute URL of the data API's root, as the client addresses it (the gateway decides where it is mounted). */
  readonly rootUrl: string;
  readonly pack: string;
  readonly entity: string;
  /** The client's other query parameters (e.g. api_key), as readPageQuery split them off: repeated in every next link. */
  readonly passthrough: ReadonlyMap<string, string>;
}

export interface NextLink {
  /** Path and query, e.g. for pagination.next. */
  readonly relative: string;
  /** Root, path and query: nextLink, pagination.next_url and the Link header. */
  readonly absolute: string;
}

const encode = (name: string, value: string) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;

export function buildNextLink(target: LinkTarget, paging: ReadonlyArray<readonly [PageParameter, string]>): NextLink {
  const parts = paging.map(([name, value]) => encode(name, value));
  // Sorted so the same request always renders the same bytes (and ETag).
  for (const name of [...target.passthrough.keys()].sort()) parts.push(encode(name, target.passthrough.get(name)!));
  const absolute = `${entityUrl(target.rootUrl, target.pack, target.entity)}?${parts.join('&')}`;
  return { relative: pathAndQuery(absolute), absolute };
}
