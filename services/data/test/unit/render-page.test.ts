import { GrpcStatus } from '@sandbox/runtime';
import { createHash } from 'node:crypto';
import { renderPage, type PageRequest } from '../../src/domain';
import { ALL_SCOPES, BASE_URL, SIGNING_KEY, thrown } from './support/data-endpoint';

const request = (overrides: Partial<PageRequest> = {}): PageRequest => ({
  pack: 'cricket',
  entity: 'teams',
  grantedScopes: ALL_SCOPES,
  baseUrl: BASE_URL,
  ...overrides,
});
const render = (overrides: Partial<PageRequest> = {}) => renderPage(request(overrides), SIGNING_KEY);
const body = (overrides: Partial<PageRequest> = {}) => JSON.parse(render(overrides).bodyJson.toString('utf8')) as Record<string, unknown>;

describe('not found and permission', () => {
  it('when the pack is unknown, then NOT_FOUND unknown_pack naming it', () => {
    const e = thrown(() => render({ pack: 'weather' }));
    expect(e).toMatchObject({ status: GrpcStatus.NOT_FOUND, code: 'unknown_pack' });
    expect(e.message).toContain('"weather"');
  });

  it('when the entity is unknown, then NOT_FOUND unknown_entity naming it', () => {
    const e = thrown(() => render({ entity: 'umpires' }));
    expect(e).toMatchObject({ status: GrpcStatus.NOT_FOUND, code: 'unknown_entity' });
    expect(e.message).toContain('"umpires"');
  });

  it('when an entity of another pack is asked for, then NOT_FOUND', () => {
    expect(thrown(() => render({ pack: 'fpa', entity: 'employees' }))).toMatchObject({ status: GrpcStatus.NOT_FOUND, code: 'unknown_entity' });
  });

  it('when the entity is unknown and the scope is missing too, then NOT_FOUND comes first', () => {
    expect(thrown(() => render({ entity: 'umpires', grantedScopes: [] }))).toMatchObject({ status: GrpcStatus.NOT_FOUND });
  });

  it('when the app lacks the pack scope, then PERMISSION_DENIED naming the scope needed', () => {
    const e = thrown(() => render({ grantedScopes: ['hr:read', 'stocks:read'] }));
    expect(e).toMatchObject({ status: GrpcStatus.PERMISSION_DENIED, code: 'missing_scope' });
    expect(e.message).toContain('cricket:read');
  });

  it('when the scope is missing and a parameter is bad too, then PERMISSION_DENIED comes first', () => {
    expect(thrown(() => render({ grantedScopes: [], page: 'zero' }))).toMatchObject({ status: GrpcStatus.PERMISSION_DENIED });
  });

  it('when only the pack scope is held, then the page renders', () => {
    expect(body({ grantedScopes: ['cricket:read'] })['entity']).toBe('teams');
  });
});

describe('the body', () => {
  it('when a page with more rows renders, then its fields are the spec\'s, in order', () => {
    expect(Object.keys(body({ pageSize: '3' }))).toEqual(['pack', 'entity', 'shape', 'nextLink', 'pagination', 'data']);
    expect(Object.keys(body({ pageSize: '3', paginate: 'token' }))).toEqual(['pack', 'entity', 'shape', 'nextLink', 'nextPageToken', 'pagination', 'data']);
  });

  it('when the last page renders, then nextLink is absent and the other fields remain', () => {
    expect(Object.keys(body({ pageSize: '100' }))).toEqual(['pack', 'entity', 'shape', 'pagination', 'data']);
  });

  it('when the body names the page, then pack, entity and shape are echoed', () => {
    expect(body({ shape: 'nested' })).toMatchObject({ pack: 'cricket', entity: 'teams', shape: 'nested' });
  });
});

describe('etag', () => {
  it('when a page renders, then the etag is the quoted sha1 of exactly the body bytes', () => {
    const page = render();
    expect(page.etag).toBe(`"${createHash('sha1').update(page.bodyJson).digest('base64url')}"`);
    expect(page.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('when the same page renders twice, then body and etag are identical', () => {
    const [a, b] = [render({ paginate: 'cursor', pageSize: '5' }), render({ paginate: 'cursor', pageSize: '5' })];
    expect(a.bodyJson.equals(b.bodyJson)).toBe(true);
    expect(a.etag).toBe(b.etag);
  });

  it('when another page or shape renders, then the etag differs', () => {
    expect(render({ page: '2', pageSize: '5' }).etag).not.toBe(render({ page: '1', pageSize: '5' }).etag);
    expect(render({ shape: 'nested' }).etag).not.toBe(render().etag);
  });
});

describe('link header', () => {
  it('when link pagination has more rows, then the Link header carries the absolute next URL with rel="next"', () => {
    const page = render({ paginate: 'link', pageSize: '5' });
    const parsed = JSON.parse(page.bodyJson.toString()) as { nextLink: string };
    expect(page.link).toBe(`<${parsed.nextLink}>; rel="next"`);
    expect(parsed.nextLink.startsWith(`${BASE_URL}/playground/data/cricket/teams?paginate=link&cursor=`)).toBe(true);
  });

  it.each(['page', 'offset', 'cursor', 'token'])('when %s pagination is used, then there is no Link header', (style) => {
    const overrides: Partial<PageRequest> = style === 'page' ? { page: '1' } : style === 'offset' ? { offset: '0' } : { paginate: style };
    expect(render({ ...overrides, pageSize: style === 'offset' ? undefined : '5', limit: style === 'offset' ? '5' : undefined }).link).toBe('');
  });
});

describe('next links', () => {
  const nextOf = (overrides: Partial<PageRequest>) => body({ pageSize: '5', ...overrides })['nextLink'] as string;

  it('when passthrough parameters are given, then every next link repeats them, encoded and sorted', () => {
    const link = nextOf({ passthroughQuery: { z: '1', api_key: 'a b&c=d' } });
    expect(link).toBe(`${BASE_URL}/playground/data/cricket/teams?page=2&page_size=5&shape=flat&api_key=a%20b%26c%3Dd&z=1`);
    expect(new URL(link).searchParams.get('api_key')).toBe('a b&c=d');
  });

  it('when a passthrough parameter has a paging name, then it cannot override the paging parameters', () => {
    const link = nextOf({ passthroughQuery: { page: '99', shape: 'nested', cursor: 'x', api_key: 'k' } });
    expect(link).toBe(`${BASE_URL}/playground/data/cricket/teams?page=2&page_size=5&shape=flat&api_key=k`);
  });

  it('when the base URL ends with a slash and a path is given, then the link joins them with one slash', () => {
    const page = body({ baseUrl: 'https://host.example/api/', path: '/v1/playground/data/cricket/teams', pageSize: '5' });
    expect(page['nextLink']).toBe('https://host.example/api/v1/playground/data/cricket/teams?page=2&page_size=5&shape=flat');
    expect((page['pagination'] as { next: string }).next).toBe('/v1/playground/data/cricket/teams?page=2&page_size=5&shape=flat');
  });

  it('when offset pagination continues, then the next link adds limit to offset', () => {
    expect(nextOf({ pageSize: undefined, offset: '3', limit: '4' })).toBe(`${BASE_URL}/playground/data/cricket/teams?offset=7&limit=4&shape=flat`);
  });
});
