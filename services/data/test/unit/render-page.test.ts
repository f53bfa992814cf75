import { GrpcStatus } from '@sandbox/runtime';
import { createHash } from 'node:crypto';
import { PAGE_PARAMETERS, renderPage, type PageRequest } from '../../src/domain';
import { ALL_SCOPES, ROOT_URL, SIGNING_KEY, thrown } from './support/data-endpoint';

const request = (rawQuery: string, overrides: Partial<PageRequest> = {}): PageRequest => ({
  pack: 'cricket',
  entity: 'teams',
  rawQuery,
  grantedScopes: ALL_SCOPES,
  rootUrl: ROOT_URL,
  ...overrides,
});
const render = (rawQuery = '', overrides: Partial<PageRequest> = {}) => renderPage(request(rawQuery, overrides), SIGNING_KEY);
const body = (rawQuery = '', overrides: Partial<PageRequest> = {}) =>
  JSON.parse(render(rawQuery, overrides).bodyJson.toString('utf8')) as Record<string, unknown>;

describe('not found and permission', () => {
  it('when the pack is unknown, then NOT_FOUND unknown_pack naming it', () => {
    const e = thrown(() => render('', { pack: 'weather' }));
    expect(e).toMatchObject({ status: GrpcStatus.NOT_FOUND, code: 'unknown_pack' });
    expect(e.message).toContain('"weather"');
  });

  it('when the entity is unknown, then NOT_FOUND unknown_entity naming it', () => {
    const e = thrown(() => render('', { entity: 'umpires' }));
    expect(e).toMatchObject({ status: GrpcStatus.NOT_FOUND, code: 'unknown_entity' });
    expect(e.message).toContain('"umpires"');
  });

  it('when an entity of another pack is asked for, then NOT_FOUND', () => {
    expect(thrown(() => render('', { pack: 'fpa', entity: 'employees' }))).toMatchObject({ status: GrpcStatus.NOT_FOUND, code: 'unknown_entity' });
  });

  it('when the entity is unknown and the scope is missing too, then NOT_FOUND comes first', () => {
    expect(thrown(() => render('', { entity: 'umpires', grantedScopes: [] }))).toMatchObject({ status: GrpcStatus.NOT_FOUND });
  });

  it('when the app lacks the pack scope, then PERMISSION_DENIED naming the scope needed, with the RFC 6750 challenge', () => {
    const e = thrown(() => render('', { grantedScopes: ['hr:read', 'stocks:read'] }));
    expect(e).toMatchObject({ status: GrpcStatus.PERMISSION_DENIED, code: 'missing_scope' });
    expect(e.message).toContain('cricket:read');
    expect((e as { challenge?: string }).challenge).toBe('Bearer realm="training-sandbox", error="insufficient_scope", scope="cricket:read"');
  });

  it('when the scope is missing and a parameter is bad too, then PERMISSION_DENIED comes first', () => {
    expect(thrown(() => render('page=zero', { grantedScopes: [] }))).toMatchObject({ status: GrpcStatus.PERMISSION_DENIED });
  });

  it('when only the pack scope is held, then the page renders', () => {
    expect(body('', { grantedScopes: ['cricket:read'] })['entity']).toBe('teams');
  });

  it('when a page renders, then it names the scope it needs, for a caller that keeps pages', () => {
    expect(render('', { grantedScopes: ['cricket:read'] }).scope).toBe('cricket:read');
  });
});

describe('the body', () => {
  it("when a page with more rows renders, then its fields are the spec's, in order", () => {
    expect(Object.keys(body('page_size=3'))).toEqual(['pack', 'entity', 'shape', 'nextLink', 'pagination', 'data']);
    expect(Object.keys(body('page_size=3&paginate=token'))).toEqual(['pack', 'entity', 'shape', 'nextLink', 'nextPageToken', 'pagination', 'data']);
  });

  it('when the last page renders, then nextLink is absent and the other fields remain', () => {
    expect(Object.keys(body('page_size=100'))).toEqual(['pack', 'entity', 'shape', 'pagination', 'data']);
  });

  it('when the body names the page, then pack, entity and shape are echoed', () => {
    expect(body('shape=nested')).toMatchObject({ pack: 'cricket', entity: 'teams', shape: 'nested' });
  });
});

describe('etag', () => {
  it('when a page renders, then the etag is the quoted sha1 of exactly the body bytes', () => {
    const page = render();
    expect(page.etag).toBe(`"${createHash('sha1').update(page.bodyJson).digest('base64url')}"`);
    expect(page.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('when the same page renders twice, then body and etag are identical', () => {
    const [a, b] = [render('paginate=cursor&page_size=5'), render('paginate=cursor&page_size=5')];
    expect(a.bodyJson.equals(b.bodyJson)).toBe(true);
    expect(a.etag).toBe(b.etag);
  });

  it('when another page or shape renders, then the etag differs', () => {
    expect(render('page=2&page_size=5').etag).not.toBe(render('page=1&page_size=5').etag);
    expect(render('shape=nested').etag).not.toBe(render().etag);
  });
});

describe('link header', () => {
  it('when link pagination has more rows, then the Link header carries the absolute next URL with rel="next"', () => {
    const page = render('paginate=link&page_size=5');
    const parsed = JSON.parse(page.bodyJson.toString()) as { nextLink: string };
    expect(page.link).toBe(`<${parsed.nextLink}>; rel="next"`);
    expect(parsed.nextLink.startsWith(`${ROOT_URL}/cricket/teams?paginate=link&cursor=`)).toBe(true);
  });

  it.each(['page=1&page_size=5', 'offset=0&limit=5', 'paginate=cursor&page_size=5', 'paginate=token&page_size=5'])(
    'when %s is used, then there is no Link header',
    (query) => {
      expect(render(query).link).toBe('');
    },
  );
});

describe('next links', () => {
  const nextOf = (rawQuery: string, overrides: Partial<PageRequest> = {}) => body(`page_size=5&${rawQuery}`, overrides)['nextLink'] as string;

  it('when other parameters are given, then every next link repeats them, encoded and sorted', () => {
    const link = nextOf('z=1&api_key=a%20b%26c%3Dd');
    expect(link).toBe(`${ROOT_URL}/cricket/teams?page=2&page_size=5&shape=flat&api_key=a%20b%26c%3Dd&z=1`);
    expect(new URL(link).searchParams.get('api_key')).toBe('a b&c=d');
  });

  it('when page parameters are given, then the next link carries only their next values, never the ones sent', () => {
    const link = nextOf('page=1&shape=nested&api_key=k');
    expect(link).toBe(`${ROOT_URL}/cricket/teams?page=2&page_size=5&shape=nested&api_key=k`);
  });

  it('when another parameter is repeated, then its first value is kept', () => {
    expect(nextOf('api_key=first&api_key=second')).toBe(`${ROOT_URL}/cricket/teams?page=2&page_size=5&shape=flat&api_key=first`);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('when a parameter is named %s, then the next link keeps it like any other', (name) => {
    const link = new URL(nextOf(`${name}=kept`));
    expect(link.searchParams.getAll(name)).toEqual(['kept']);
    expect(link.searchParams.get('page')).toBe('2');
  });

  it('when the root URL has a proxy prefix and ends with a slash, then links join it with one slash and next is its path', () => {
    const page = body('page_size=5', { rootUrl: 'https://host.example/api/v1/playground/data/' });
    expect(page['nextLink']).toBe('https://host.example/api/v1/playground/data/cricket/teams?page=2&page_size=5&shape=flat');
    expect((page['pagination'] as { next: string }).next).toBe('/api/v1/playground/data/cricket/teams?page=2&page_size=5&shape=flat');
  });

  it('when the root URL is mounted elsewhere, then every link follows it', () => {
    const page = body('paginate=link&page_size=5', { rootUrl: 'http://127.0.0.1:8080/datasets' });
    expect(page['nextLink']).toMatch(/^http:\/\/127\.0\.0\.1:8080\/datasets\/cricket\/teams\?paginate=link&cursor=/);
    expect((page['pagination'] as { next: string }).next).toMatch(/^\/datasets\/cricket\/teams\?/);
  });

  it('when offset pagination continues, then the next link adds limit to offset', () => {
    expect(body('offset=3&limit=4')['nextLink']).toBe(`${ROOT_URL}/cricket/teams?offset=7&limit=4&shape=flat`);
  });
});

describe('the raw query', () => {
  it.each(PAGE_PARAMETERS.map((name) => [name]))('when %s is given twice, then INVALID_ARGUMENT invalid_parameter naming it', (name) => {
    const e = thrown(() => render(`${name}=1&api_key=k&${name}=1`));
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_parameter', message: `${name} must be given once.` });
  });

  it('when a page parameter is given twice, even empty, then it is refused: one value never silently wins', () => {
    expect(thrown(() => render('page=&page=2'))).toMatchObject({ code: 'invalid_parameter', message: 'page must be given once.' });
  });

  it('when a page parameter is repeated and the pack is unknown too, then the repetition is refused first, as the gateway did', () => {
    expect(thrown(() => render('page=1&page=2', { pack: 'weather', grantedScopes: [] }))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT });
  });
});
