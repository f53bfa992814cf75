// The page renderer builds pages from rows serialised once (src/domain/row-text.ts).
// These tests hold it to the bytes of the renderer it replaced, kept frozen in
// reference-renderer.ts: every pack, entity, shape and pagination style, page
// sizes around the text cache's block size, the first, middle, last and a
// past-the-end page, and the client's own parameters in next links.
import { ENTITIES, renderPage, SHAPES, type EntityDefinition, type PageRequest } from '../../src/domain';
import { BLOCK_ROWS, RowTextCache } from '../../src/domain/row-text';
import { nestRow, rowValues } from '../../src/domain/shapes';
import { referenceRenderPage } from './reference-renderer';
import { ALL_SCOPES, ROOT_URL, SIGNING_KEY } from './support/data-endpoint';

const STYLES = ['page', 'offset', 'cursor', 'token', 'link'] as const;
type Style = (typeof STYLES)[number];
/** Entities this small are walked page by page to the end; larger ones are sampled. */
const WALK_LIMIT = 2500;

const request = (entity: EntityDefinition, rawQuery: string): PageRequest => ({
  pack: entity.pack,
  entity: entity.name,
  rawQuery,
  grantedScopes: ALL_SCOPES,
  rootUrl: ROOT_URL,
});

/** Renders with both renderers and expects the same bytes, ETag, Link and scope; returns the body for following it. */
function same(entity: EntityDefinition, rawQuery: string): { nextLink?: string; nextPageToken?: string } {
  const expected = referenceRenderPage(request(entity, rawQuery), SIGNING_KEY);
  const actual = renderPage(request(entity, rawQuery), SIGNING_KEY);
  // toString first, so a failure shows where the texts part.
  expect({ query: `${entity.pack}/${entity.name}?${rawQuery}`, body: actual.bodyJson.toString('utf8') }).toEqual({
    query: `${entity.pack}/${entity.name}?${rawQuery}`,
    body: expected.bodyJson.toString('utf8'),
  });
  expect(actual.bodyJson.equals(expected.bodyJson)).toBe(true);
  expect([actual.etag, actual.link, actual.scope]).toEqual([expected.etag, expected.link, expected.scope]);
  return JSON.parse(expected.bodyJson.toString('utf8')) as { nextLink?: string; nextPageToken?: string };
}

/** The query of a style's first page. */
function firstQuery(style: Style, shape: string, size: number, extra = ''): string {
  const paging = {
    page: `page=1&page_size=${size}`,
    offset: `offset=0&limit=${size}`,
    cursor: `paginate=cursor&page_size=${size}`,
    token: `paginate=token&page_size=${size}`,
    link: `paginate=link&page_size=${size}`,
  }[style];
  return `${paging}&shape=${shape}${extra}`;
}

/** Pages through by the style's own mechanism (the next link's query, or the page token), comparing every page; returns the pages seen. */
function walk(entity: EntityDefinition, style: Style, shape: string, size: number, maxPages = Infinity, extra = ''): number {
  let query: string | null = firstQuery(style, shape, size, extra);
  let pages = 0;
  while (query !== null && pages < maxPages) {
    const body = same(entity, query);
    pages++;
    if (style === 'token') query = body.nextPageToken ? `paginate=token&pageToken=${body.nextPageToken}${extra}` : null;
    else query = body.nextLink ? new URL(body.nextLink).search.slice(1) : null;
  }
  return pages;
}

/** A query reaching row `start` directly in a style that can (page and offset), for the sampled positions of large entities. */
function at(style: 'page' | 'offset', shape: string, size: number, start: number): string {
  return style === 'page' ? `page=${Math.floor(start / size) + 1}&page_size=${size}&shape=${shape}` : `offset=${start}&limit=${size}&shape=${shape}`;
}

const small = ENTITIES.filter((e) => e.count <= WALK_LIMIT);
const large = ENTITIES.filter((e) => e.count > WALK_LIMIT);

describe('every page of every small entity, in every shape and style, is byte for byte the reference renderer', () => {
  it('covers every pack, and the large entities too', () => {
    expect(new Set(ENTITIES.map((e) => e.pack)).size).toBe(5);
    expect(large.map((e) => `${e.pack}/${e.name}`).sort()).toEqual(['fpa/actuals', 'marketing/daily', 'stocks/candles']);
  });

  describe.each(small.map((e) => [`${e.pack}/${e.name}`, e] as const))('%s', (_name, entity) => {
    it.each(SHAPES.map((s) => [s]))('when walked to the end in %s with page size 50, in each of the five styles, then every page is identical', (shape) => {
      for (const style of STYLES) expect(walk(entity, style, shape, 50)).toBe(Math.max(1, Math.ceil(entity.count / 50)));
    });
  });
});

describe('page sizes and positions', () => {
  // 1, the cache's block size and its neighbours (pages start inside a block and cross into the next), the maximum.
  const sizes = [1, BLOCK_ROWS - 1, BLOCK_ROWS, BLOCK_ROWS + 1, 1000];

  // The styles differ only in the envelope, which the walks above cover at size 50; here each size goes with
  // another style per shape, so that every style meets every size across the four shapes without five times the work.
  it.each(SHAPES.map((s, i) => [s, i]))(
    'when small entities are walked in %s at other page sizes (first 3 pages), then every page is identical',
    (shape, i) => {
      for (const entity of small) sizes.forEach((size, s) => walk(entity, STYLES[(s + i) % STYLES.length]!, shape, size, 3));
    },
  );

  it.each(SHAPES.map((s) => [s]))(
    'when the large entities are read in %s at their first, middle and last pages and past the end, then every page is identical',
    (shape) => {
      for (const entity of large) {
        for (const size of [BLOCK_ROWS + 1, 1000]) {
          const last = Math.floor((entity.count - 1) / size) * size;
          // Full-size pages only at the two ends: the middle ones add cost, not paths.
          const starts = size === 1000 ? [0, last] : [0, size, Math.floor(entity.count / 2) - 7, last - size, last];
          for (const start of starts) {
            same(entity, at('page', shape, size, Math.floor(start / size) * size));
            same(entity, at('offset', shape, size, Math.max(0, start)));
          }
          same(entity, `page=${Math.ceil(entity.count / size) + 1}&page_size=${size}&shape=${shape}`);
          same(entity, `offset=${entity.count}&limit=${size}&shape=${shape}`);
          same(entity, `offset=${entity.count + 12345}&limit=${size}&shape=${shape}`);
        }
        // The opaque styles from the start, three pages on.
        for (const style of ['cursor', 'token', 'link'] as const) walk(entity, style, shape, 50, 3);
      }
    },
  );

  it('when the large entities are read at scattered offsets (a fixed pseudo-random walk), then every page is identical', () => {
    let seed = 36;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const entity of large) {
      for (let n = 0; n < 40; n++) {
        const shape = SHAPES[n % SHAPES.length]!;
        same(entity, `offset=${Math.floor(next() * entity.count)}&limit=${1 + Math.floor(next() * 120)}&shape=${shape}`);
      }
    }
  });

  it('when the whole of fpa/actuals is walked in nested-list (groups cut by page ends), then every page is identical', () => {
    const actuals = ENTITIES.find((e) => e.pack === 'fpa' && e.name === 'actuals')!;
    expect(walk(actuals, 'offset', 'nested-list', 50)).toBe(Math.ceil(actuals.count / 50));
  });
});

describe('the envelope', () => {
  const teams = ENTITIES.find((e) => e.pack === 'cricket' && e.name === 'teams')!;
  const employees = ENTITIES.find((e) => e.pack === 'hr' && e.name === 'employees')!;

  it.each([
    ['no parameters at all', ''],
    ['a clamped page size', 'page_size=5000'],
    ['a clamped limit', 'offset=10&limit=1001&shape=nested'],
    ['a page past the end', 'page=999&shape=list-of-lists'],
    ['an empty list-of-lists page (the header alone)', 'offset=2173&shape=list-of-lists'],
    ['the client’s own parameters, repeated and odd', 'api_key=a%20b%26c%3Dd&z=1&api_key=second&constructor=x&__proto__=y&%C3%A9t%C3%A9=%F0%9F%98%80'],
    ['offset with page_size as the limit', 'offset=3&page_size=4&shape=nested-list'],
    ['a cursor continued without shape and page size', ''],
  ])('when the query has %s, then the page is identical', (label, query) => {
    if (label.startsWith('a cursor')) {
      const first = same(employees, 'paginate=cursor&page_size=7&shape=nested');
      same(employees, new URL(first.nextLink!).search.slice(1).replace(/&page_size=7&shape=nested/, ''));
      return;
    }
    same(employees, query);
    same(teams, query);
  });
});

describe('the row text cache', () => {
  const candles = ENTITIES.find((e) => e.pack === 'stocks' && e.name === 'candles')!;

  it('when rows are read in each form, then each text is JSON.stringify of the row as that shape writes it', () => {
    const cache = new RowTextCache();
    for (const i of [0, BLOCK_ROWS - 1, BLOCK_ROWS, 999_999]) {
      const row = candles.row(i);
      expect(cache.row(candles, 'flat', i)).toBe(JSON.stringify(row));
      expect(cache.row(candles, 'values', i)).toBe(JSON.stringify(rowValues(candles, row)));
      expect(cache.row(candles, 'nested', i)).toBe(JSON.stringify(nestRow(candles, row)));
    }
  });

  it('when more rows are read than the budget holds, then it keeps to the budget and evicted rows come back identical', () => {
    const budget = 16 * 1024;
    const cache = new RowTextCache(budget);
    let largestBlock = 0;
    for (let i = 0; i < 5_000; i += BLOCK_ROWS) {
      const texts: string[] = [];
      cache.appendRows(candles, 'flat', i, i + BLOCK_ROWS, texts);
      largestBlock = Math.max(
        largestBlock,
        texts.reduce((sum, t) => sum + t.length + 64, 0),
      );
      expect(cache.heldBytes).toBeLessThanOrEqual(budget);
    }
    expect(cache.heldBytes).toBeGreaterThan(budget / 2);
    expect(cache.row(candles, 'flat', 0)).toBe(JSON.stringify(candles.row(0)));
    expect(largestBlock).toBeLessThan(budget);
  });

  it('when a block is read again, then it is spared by the next eviction (second chance)', () => {
    const cache = new RowTextCache(4 * 1024);
    const first = cache.row(candles, 'flat', 0);
    for (let i = BLOCK_ROWS; i < 20 * BLOCK_ROWS; i += BLOCK_ROWS) {
      cache.row(candles, 'flat', i);
      // Touching block 0 each time keeps it; the same string object comes back, not a new serialisation.
      expect(cache.row(candles, 'flat', 0)).toBe(first);
      expect(cache.heldBytes).toBeLessThanOrEqual(4 * 1024);
    }
  });
});
