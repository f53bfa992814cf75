import { renderPage, type PageRequest } from '../../../src/domain';
import type { Row } from '../../../src/domain/entity';

export const SIGNING_KEY = 'unit-test-signing-key';
/** Where the data API is mounted, as a client behind a proxy prefix addresses it. */
export const ROOT_URL = 'https://sandbox.test/prefix/playground/data';
export const ALL_SCOPES = ['fpa:read', 'stocks:read', 'marketing:read', 'hr:read', 'cricket:read'];

export interface Response {
  readonly body: PageBody;
  readonly etag: string;
  readonly link: string;
}

export interface PageBody {
  pack: string;
  entity: string;
  shape: string;
  nextLink?: string;
  nextPageToken?: string;
  pagination: Record<string, unknown> & { total: number; next: string | null; next_url: string | null; returned: number };
  data: unknown[];
}

/** The page request the gateway sends for a URL under ROOT_URL: the raw query, untouched. */
export function requestFor(url: string, grantedScopes: readonly string[] = ALL_SCOPES): PageRequest {
  const parsed = new URL(url, ROOT_URL);
  const below = parsed.pathname.slice(new URL(ROOT_URL).pathname.length);
  const [, pack, entity] = /^\/([^/]+)\/([^/]+)$/.exec(below) ?? [];
  if (!pack || !entity) throw new Error(`not a data URL: ${url}`);
  return { pack, entity, rawQuery: parsed.search.slice(1), grantedScopes, rootUrl: ROOT_URL };
}

/** A GET of the data endpoint, as a client sees it, for an absolute URL or a path-absolute one (pagination.next). */
export function get(url: string, grantedScopes: readonly string[] = ALL_SCOPES): Response {
  const page = renderPage(requestFor(url, grantedScopes), SIGNING_KEY);
  return { body: JSON.parse(page.bodyJson.toString('utf8')) as PageBody, etag: page.etag, link: page.link };
}

export const dataUrl = (pack: string, entity: string, query = '') => `${ROOT_URL}/${pack}/${entity}${query ? `?${query}` : ''}`;

/** Runs `fn` and returns the error it throws, failing if it does not throw. */
export function thrown(fn: () => unknown): { status: string; code: string; message: string } {
  try {
    fn();
  } catch (error) {
    return error as { status: string; code: string; message: string };
  }
  throw new Error('expected an error, none was thrown');
}

export type { Row };
