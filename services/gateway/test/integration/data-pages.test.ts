import { isolatedMongoUrl, rawRequest, requireStoreUrls, registerUser, createApp, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';
import { PACKS } from '../../../data/src/domain';

jest.setTimeout(120_000);

const SHAPES = ['flat', 'list-of-lists', 'nested', 'nested-list'] as const;
const STYLES = ['page', 'offset', 'cursor', 'token', 'link'] as const;
type Style = (typeof STYLES)[number];
/** Entities small enough to walk whole; the 1,000,000-row one is checked at its edges. */
const WALKABLE = PACKS.flatMap((p) => p.entities.filter((e) => e.count <= 10_000).map((e) => [p.name, e.name] as const));
const PAGE_SIZE = 400;
const entityCount = (pack: string, entity: string) => PACKS.find((p) => p.name === pack)!.entities.find((e) => e.name === entity)!.count;

interface Page {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  link?: string;
}

let system: RunningSystem;
let app: CreatedApp;

async function getPage(url: string, headers: Record<string, string> = { 'x-api-key': app.apiKey }): Promise<Page> {
  const res = await rawRequest(url, { headers });
  return { status: res.status, body: res.json(), link: res.headers.link as string | undefined };
}

/** RFC 8288: the target of rel="next", if any. */
function nextFromLinkHeader(link: string | undefined): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const match = /<([^>]+)>\s*;(.*)/.exec(part.trim());
    if (match && /rel="?([^";]*\s)?next(\s[^";]*)?"?/.test(match[2])) return match[1];
  }
  return undefined;
}

/**
 * A client that pages the way the style says (spec rules 1-5), and nothing
 * else: page numbers, offsets, the opaque cursor link, the token, the Link header.
 */
async function walkByStyle(path: string, shape: string, style: Style): Promise<Page[]> {
  const base = `${system.baseUrl}${path}`;
  const pages: Page[] = [];
  const first: Record<Style, string> = {
    page: `${base}?shape=${shape}&page=1&page_size=${PAGE_SIZE}`,
    offset: `${base}?shape=${shape}&offset=0&limit=${PAGE_SIZE}`,
    cursor: `${base}?shape=${shape}&paginate=cursor&page_size=${PAGE_SIZE}`,
    token: `${base}?shape=${shape}&paginate=token&page_size=${PAGE_SIZE}`,
    link: `${base}?shape=${shape}&paginate=link&page_size=${PAGE_SIZE}`,
  };
  let url: string | undefined = first[style];
  for (let n = 1; url; n++) {
    const page = await getPage(url);
    expect(page.status).toBe(200);
    pages.push(page);
    const p = page.body.pagination;
    switch (style) {
      case 'page':
        url = p.returned === 0 || n >= p.total_pages ? undefined : `${base}?shape=${shape}&page=${n + 1}&page_size=${PAGE_SIZE}`;
        break;
      case 'offset':
        url = n * PAGE_SIZE >= p.total ? undefined : `${base}?shape=${shape}&offset=${n * PAGE_SIZE}&limit=${PAGE_SIZE}`;
        break;
      case 'cursor':
        url = p.next === null ? undefined : `${system.baseUrl}${p.next}`;
        if (p.next !== null) expect(p.next_url).toBe(url);
        break;
      case 'token':
        expect(page.body.nextPageToken ?? '').not.toMatch(/page|http|\//i);
        url = page.body.nextPageToken
          ? `${base}?shape=${shape}&paginate=token&page_size=${PAGE_SIZE}&pageToken=${encodeURIComponent(page.body.nextPageToken)}`
          : undefined;
        break;
      case 'link':
        url = nextFromLinkHeader(page.link);
        break;
    }
    if (n > 10_000) throw new Error('runaway walk');
  }
  return pages;
}

/** The generic client: follows nextLink, whatever the style. */
async function walkByNextLink(firstUrl: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (let url: string | undefined = firstUrl; url; url = pages.at(-1)!.body.nextLink) {
    const page = await getPage(url);
    expect(page.status).toBe(200);
    pages.push(page);
  }
  return pages;
}

/** The entity's own rows in a page, as comparable items (list-of-lists rows become objects). */
function items(pages: Page[]): unknown[] {
  return pages.flatMap((page) => {
    const data = page.body.data as unknown[];
    if (page.body.shape !== 'list-of-lists') return data;
    const [header, ...rows] = data as unknown[][];
    return rows.map((row) => Object.fromEntries((header as string[]).map((name, i) => [name, row[i]])));
  });
}

beforeAll(async () => {
  system = await startSystem({ MONGO_URL: isolatedMongoUrl('data'), REDIS_URL: requireStoreUrls().redisUrl, TRUST_PROXY: 'true' });
  app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
});
afterAll(async () => system?.stop());

describe.each(WALKABLE)('%s/%s', (pack, entity) => {
  const path = `/playground/data/${pack}/${entity}`;

  // Paging counts the entity's own rows in every shape (the data service's unit tests pin each shape's
  // rendering), so the other shapes are walked whole on the entities of at most 2,500 rows: every style
  // still crosses several pages in each shape, at a third of the rows.
  const shapes = SHAPES.filter((shape) => shape === 'flat' || entityCount(pack, entity) <= 2_500);
  it.each(shapes)('in shape %s, every style and the generic nextLink client collect exactly total rows, the same rows', async (shape) => {
    let reference: unknown[] | undefined;
    for (const style of STYLES) {
      const pages = await walkByStyle(path, shape, style);
      const total = pages[0].body.pagination.total;
      const counted = pages.reduce((sum, p) => sum + p.body.pagination.returned, 0);
      expect({ style, counted }).toEqual({ style, counted: total });
      // The last page says it is the last, in every way a client might look.
      const last = pages.at(-1)!.body;
      expect(last.nextLink).toBeUndefined();
      expect(last.pagination.next).toBeNull();
      expect(last.nextPageToken).toBeUndefined();
      if (style !== 'token') expect(pages.every((p) => p.body.nextPageToken === undefined)).toBe(true);

      const collected = items(pages);
      if (shape === 'flat' || shape === 'list-of-lists' || shape === 'nested') {
        expect(collected).toHaveLength(total);
        expect(new Set(collected.map((row) => JSON.stringify(row))).size).toBe(total); // no duplicates
      }
      if (reference === undefined) reference = collected;
      else expect({ style, same: collected }).toEqual({ style, same: reference });

      const generic = await walkByNextLink(firstUrlOf(path, shape, style));
      expect({ style, generic: items(generic) }).toEqual({ style, generic: reference });
    }
  });
});

function firstUrlOf(path: string, shape: string, style: Style): string {
  const base = `${system.baseUrl}${path}?shape=${shape}`;
  return {
    page: `${base}&page=1&page_size=${PAGE_SIZE}`,
    offset: `${base}&offset=0&limit=${PAGE_SIZE}`,
    cursor: `${base}&paginate=cursor&page_size=${PAGE_SIZE}`,
    token: `${base}&paginate=token&page_size=${PAGE_SIZE}`,
    link: `${base}&paginate=link&page_size=${PAGE_SIZE}`,
  }[style];
}

describe('the 1,000,000-row entity (stocks/candles)', () => {
  const path = '/playground/data/stocks/candles';

  it('when paged by number and by offset, then a deep page holds the same rows', async () => {
    const byPage = await getPage(`${system.baseUrl}${path}?page=20000&page_size=50`);
    const byOffset = await getPage(`${system.baseUrl}${path}?offset=${19_999 * 50}&limit=50`);
    expect(byPage.body.pagination.total).toBe(1_000_000);
    expect(byPage.body.data).toHaveLength(50);
    expect(byOffset.body.data).toEqual(byPage.body.data);
  });

  it('when the last page is reached, then it is short or exact and has no next', async () => {
    const last = await getPage(`${system.baseUrl}${path}?page=1000&page_size=1000`);
    expect(last.body.data).toHaveLength(1000);
    expect(last.body.pagination.next).toBeNull();
    expect(last.body.nextLink).toBeUndefined();
  });

  it('when cursor, token and link clients take three pages, then they see the first 3 x 1000 rows in order', async () => {
    const expected = (await getPage(`${system.baseUrl}${path}?offset=0&limit=3000`)).body; // clamped to 1000
    expect(expected.pagination.page_size_clamped ?? expected.pagination.limit).toBeTruthy();
    const firstThree = items([
      await getPage(`${system.baseUrl}${path}?offset=0&limit=1000`),
      await getPage(`${system.baseUrl}${path}?offset=1000&limit=1000`),
      await getPage(`${system.baseUrl}${path}?offset=2000&limit=1000`),
    ]);
    for (const style of ['cursor', 'token', 'link'] as const) {
      const pages: Page[] = [];
      let url: string | undefined = firstUrlOf(path, 'flat', style).replace(`page_size=${PAGE_SIZE}`, 'page_size=1000');
      while (url && pages.length < 3) {
        const page = await getPage(url);
        pages.push(page);
        url =
          style === 'cursor'
            ? `${system.baseUrl}${page.body.pagination.next}`
            : style === 'token'
              ? `${system.baseUrl}${path}?paginate=token&page_size=1000&pageToken=${encodeURIComponent(page.body.nextPageToken)}`
              : nextFromLinkHeader(page.link);
      }
      expect({ style, rows: items(pages) }).toEqual({ style, rows: firstThree });
    }
  });
});

describe('access to the data endpoint', () => {
  const url = (q = '') => `${system.baseUrl}/playground/data/hr/employees${q}`;

  it('when no credential is sent, then 401 with WWW-Authenticate in the error shape', async () => {
    const res = await rawRequest(url());
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    expect(res.json().error.code).toBe('missing_credentials');
  });

  it('a refusal carries the request id and the CORS headers, like every response', async () => {
    const res = await rawRequest(url(), { headers: { 'X-Request-Id': 'refused-1', Origin: 'https://learner.example' } });
    expect(res.status).toBe(401);
    expect(res.headers['x-request-id']).toBe('refused-1');
    expect(res.json().error.requestId).toBe('refused-1');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
  });

  it('a CORS preflight for the API key header is answered 204, so browsers may send it', async () => {
    const res = await rawRequest(url(), {
      method: 'OPTIONS',
      headers: { Origin: 'https://learner.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('GET');
    expect(res.headers['access-control-allow-headers']).toBe('x-api-key');
  });

  it('when a wrong API key is sent, then 401 invalid_credentials', async () => {
    const res = await rawRequest(url(), { headers: { 'x-api-key': 'ak_not_a_real_key_at_all' } });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('accepts the API key in the query and keeps it in nextLink, so following the link stays authenticated', async () => {
    const first = await rawRequest(url(`?api_key=${app.apiKey}&page_size=5`));
    expect(first.status).toBe(200);
    const next = first.json().nextLink as string;
    expect(next).toContain(`api_key=${app.apiKey}`);
    expect((await rawRequest(next)).status).toBe(200);
  });

  it('accepts the app bearer token', async () => {
    expect((await rawRequest(url(), { headers: { Authorization: `Bearer ${app.bearerToken}` } })).status).toBe(200);
  });

  it('when the app lacks the pack scope, then 403 naming the scope', async () => {
    const narrow = await createApp(system.baseUrl, await registerUser(system.baseUrl), { scopes: ['fpa:read'] });
    const res = await rawRequest(url(), { headers: { 'x-api-key': narrow.apiKey } });
    expect(res.status).toBe(403);
    expect(res.json().error).toMatchObject({ code: 'missing_scope', message: expect.stringContaining('hr:read') });
    expect((await rawRequest(`${system.baseUrl}/playground/data/fpa/actuals`, { headers: { 'x-api-key': narrow.apiKey } })).status).toBe(200);
  });

  it('when the pack or entity is unknown, then 404', async () => {
    const headers = { 'x-api-key': app.apiKey };
    expect((await rawRequest(`${system.baseUrl}/playground/data/weather/today`, { headers })).status).toBe(404);
    expect((await rawRequest(`${system.baseUrl}/playground/data/hr/umpires`, { headers })).status).toBe(404);
    expect((await rawRequest(`${system.baseUrl}/playground/data/weather`)).status).toBe(404);
  });
});

describe('parameters, cursors and tokens', () => {
  const get = (q: string) => rawRequest(`${system.baseUrl}/playground/data/hr/employees${q}`, { headers: { 'x-api-key': app.apiKey } });

  it.each([
    ['?page_size=0', 'page_size'],
    ['?page_size=-5', 'page_size'],
    ['?page=1.5', 'page'],
    ['?offset=-1', 'offset'],
    ['?limit=abc', 'limit'],
    ['?page=1&page=2', 'page'],
    ['?shape=square', 'shape'],
    ['?paginate=sideways', 'paginate'],
  ])('when the query is %s, then 400 naming %s', async (query, name) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.json().error.message).toContain(name);
  });

  it('when page_size is above 1000, then 1000 rows come back and the page says it was clamped', async () => {
    const res = await get('?page_size=5000');
    expect(res.status).toBe(200);
    expect(res.json().data).toHaveLength(1000);
    expect(res.json().pagination).toMatchObject({ page_size: 1000, page_size_clamped: true });
  });

  it('when a page is past the end, then 200 with empty data and no next', async () => {
    const res = await get('?page=999&page_size=50');
    expect(res.status).toBe(200);
    expect(res.json().data).toEqual([]);
    expect(res.json().pagination.next).toBeNull();
    expect(res.json().nextLink).toBeUndefined();
  });

  it('when a cursor is tampered with, then 400 invalid_cursor', async () => {
    const next: string = (await get('?paginate=cursor&page_size=5')).json().pagination.next;
    const cursor = new URL(next, system.baseUrl).searchParams.get('cursor')!;
    const flipped = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
    const res = await get(`?paginate=cursor&cursor=${flipped}`);
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('invalid_cursor');
  });

  it('when a page token is reused for another entity, then 400', async () => {
    const token: string = (await get('?paginate=token&page_size=5')).json().nextPageToken;
    const res = await rawRequest(`${system.baseUrl}/playground/data/hr/departments?paginate=token&pageToken=${token}`, {
      headers: { 'x-api-key': app.apiKey },
    });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('invalid_page_token');
  });

  it('identical pages carry identical strong ETags, and If-None-Match answers 304', async () => {
    const a = await get('?page=2&page_size=10');
    const b = await get('?page=2&page_size=10');
    expect(a.headers.etag).toMatch(/^"[^"]+"$/);
    expect(b.headers.etag).toBe(a.headers.etag);
    const cached = await rawRequest(`${system.baseUrl}/playground/data/hr/employees?page=2&page_size=10`, {
      headers: { 'x-api-key': app.apiKey, 'If-None-Match': a.headers.etag as string },
    });
    expect(cached.status).toBe(304);
    expect(cached.body).toBe('');
    expect(cached.headers.etag).toBe(a.headers.etag);
    expect(cached.headers['x-request-id']).toEqual(expect.any(String));
  });

  it("a page answered from the gateway's cache has the status, headers and bytes of the page first fetched", async () => {
    // A query no other test asks, so the first answer is a cache miss (the service renders it) and the second a hit.
    const query = '?paginate=link&page_size=7&shape=nested';
    const miss = await get(query);
    const hit = await get(query);
    const comparable = (res: typeof miss) => {
      const { date, 'x-request-id': requestId, ...headers } = res.headers;
      expect(requestId).toEqual(expect.any(String));
      return { status: res.status, headers, body: res.body };
    };
    expect(comparable(hit)).toEqual(comparable(miss));
    expect(miss.headers.link).toContain('rel="next"');
  });

  it('HEAD answers the headers of GET without a body', async () => {
    const full = await get('?page=3&page_size=10');
    const head = await rawRequest(`${system.baseUrl}/playground/data/hr/employees?page=3&page_size=10`, {
      method: 'HEAD',
      headers: { 'x-api-key': app.apiKey },
    });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(full.body)));
    expect(head.headers.etag).toBe(full.headers.etag);
  });

  it('a parameter the page does not read is kept in nextLink, whatever its name', async () => {
    const res = await get('?page_size=5&constructor=x&toString=y&campaign=spring');
    expect(res.status).toBe(200);
    const next = new URL(res.json().nextLink);
    expect([...next.searchParams.keys()]).toEqual(expect.arrayContaining(['constructor', 'toString', 'campaign']));
  });

  it('behind a trusted proxy, nextLink and next_url use the forwarded scheme, host and prefix', async () => {
    const res = await rawRequest(`${system.baseUrl}/playground/data/hr/employees?paginate=cursor&page_size=5`, {
      headers: { 'x-api-key': app.apiKey, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'class.example.org', 'X-Forwarded-Prefix': '/sandbox' },
    });
    expect(res.json().nextLink).toMatch(/^https:\/\/class\.example\.org\/sandbox\/playground\/data\/hr\/employees\?/);
    expect(res.json().pagination.next_url).toBe(res.json().nextLink);
  });

  it('Link, ETag and the request id are readable cross-origin', async () => {
    const res = await get('?paginate=link&page_size=5');
    expect(res.headers.link).toContain('rel="next"');
    for (const name of ['Link', 'ETag', 'X-Request-Id']) expect(res.headers['access-control-expose-headers']).toContain(name);
  });
});

describe('catalog and pack description', () => {
  it('the catalog lists the five packs with their scopes, the four shapes and the five styles', async () => {
    const body = (await rawRequest(`${system.baseUrl}/playground/data`)).json();
    expect(body.packs.map((p: { name: string }) => p.name)).toEqual(['fpa', 'stocks', 'marketing', 'hr', 'cricket']);
    expect(JSON.stringify(body)).toContain('cricket:read');
    expect(body.shapes.map((s: { name: string }) => s.name)).toEqual([...SHAPES]);
    expect(JSON.stringify(body.pagination)).toEqual(expect.stringContaining('pageToken'));
  });

  it('a pack description gives each entity its fields, a sample row and counts', async () => {
    const body = (await rawRequest(`${system.baseUrl}/playground/data/cricket`)).json();
    const innings = body.entities.find((e: { name: string }) => e.name === 'innings');
    expect(innings.fields.length).toBeGreaterThan(3);
    expect(Object.keys(innings.sample)).toEqual(expect.arrayContaining(innings.fields.map((f: { name: string }) => f.name)));
    expect(innings.rows).toBeGreaterThan(0);
  });
});
