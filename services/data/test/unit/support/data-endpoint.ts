import { renderPage, type PageRequest } from '../../../src/domain';
import type { Row } from '../../../src/domain/entity';

export const SIGNING_KEY = 'unit-test-signing-key';
export const BASE_URL = 'https://sandbox.test/prefix';
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

const PARAMETER_FIELDS: Record<string, keyof PageRequest> = {
  shape: 'shape',
  page: 'page',
  page_size: 'pageSize',
  offset: 'offset',
  limit: 'limit',
  cursor: 'cursor',
  pageToken: 'pageToken',
  paginate: 'paginate',
};

/** The page request the gateway would build for a URL under BASE_URL. */
export function requestFor(url: string, grantedScopes: readonly string[] = ALL_SCOPES): PageRequest {
  const parsed = new URL(url, BASE_URL);
  const path = parsed.pathname.slice(new URL(BASE_URL).pathname.length);
  const [, pack, entity] = /^\/playground\/data\/([^/]+)\/([^/]+)$/.exec(path) ?? [];
  if (!pack || !entity) throw new Error(`not a data URL: ${url}`);
  const request: Record<string, unknown> = { pack, entity, grantedScopes, baseUrl: BASE_URL, path };
  const passthroughQuery: Record<string, string> = {};
  for (const [name, value] of parsed.searchParams) {
    const field = PARAMETER_FIELDS[name];
    if (field) request[field] = value;
    else passthroughQuery[name] = value;
  }
  request['passthroughQuery'] = passthroughQuery;
  return request as unknown as PageRequest;
}

/** A GET of the data endpoint, as a client sees it, for an absolute URL or a path under the base. */
export function get(url: string, grantedScopes: readonly string[] = ALL_SCOPES): Response {
  const absolute = url.startsWith('/') ? `${BASE_URL}${url}` : url;
  const page = renderPage(requestFor(absolute, grantedScopes), SIGNING_KEY);
  return { body: JSON.parse(page.bodyJson.toString('utf8')) as PageBody, etag: page.etag, link: page.link };
}

export const dataUrl = (pack: string, entity: string, query = '') => `${BASE_URL}/playground/data/${pack}/${entity}${query ? `?${query}` : ''}`;

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
