import { GrpcStatus } from '@sandbox/runtime';
import { DATASET_VERSION, ENTITIES, findEntity, readPageQuery } from '../../src/domain';
import type { EntityDefinition, Row } from '../../src/domain/entity';
import { sealPosition } from '../../src/domain/page-token';
import { entityOrdinal } from '../../src/domain/packs';
import { dataUrl, get, requestFor, ROOT_URL, SIGNING_KEY, thrown, type Response } from './support/data-endpoint';

const API_KEY = 'key with spaces & symbols=1';
const AUTH = `api_key=${encodeURIComponent(API_KEY)}`;
const MAX_PAGES = 5000;

/** A GET that, like the real endpoint, fails unless the api_key query parameter came along. */
function authedGet(url: string): Response {
  if (readPageQuery(requestFor(url).rawQuery).passthrough.get('api_key') !== API_KEY) throw new Error(`401: the api_key was lost in ${url}`);
  return get(url);
}

type Client = (entity: EntityDefinition, pageSize: number) => unknown[];

const CLIENTS: Record<string, Client> = {
  'page number': (entity, pageSize) => {
    const rows: unknown[] = [];
    for (let page = 1; page < MAX_PAGES; page++) {
      const { body } = authedGet(dataUrl(entity.pack, entity.name, `page=${page}&page_size=${pageSize}&${AUTH}`));
      rows.push(...body.data);
      if (!body.pagination['has_more']) return rows;
    }
    throw new Error('did not finish');
  },
  offset: (entity, pageSize) => {
    const rows: unknown[] = [];
    for (let offset = 0; offset < MAX_PAGES * pageSize; offset += pageSize) {
      const { body } = authedGet(dataUrl(entity.pack, entity.name, `offset=${offset}&limit=${pageSize}&${AUTH}`));
      rows.push(...body.data);
      if (!body.pagination['has_more']) return rows;
    }
    throw new Error('did not finish');
  },
  cursor: (entity, pageSize) => {
    const rows: unknown[] = [];
    let url: string | null = dataUrl(entity.pack, entity.name, `paginate=cursor&page_size=${pageSize}&${AUTH}`);
    for (let n = 0; url !== null && n < MAX_PAGES; n++) {
      const { body }: Response = authedGet(url);
      rows.push(...body.data);
      url = body.pagination.next;
    }
    if (url !== null) throw new Error('did not finish');
    return rows;
  },
  token: (entity, pageSize) => {
    const rows: unknown[] = [];
    let query = `paginate=token&page_size=${pageSize}&${AUTH}`;
    for (let n = 0; n < MAX_PAGES; n++) {
      const { body } = authedGet(dataUrl(entity.pack, entity.name, query));
      rows.push(...body.data);
      if (body.nextPageToken === undefined) return rows;
      // Only the token goes back: shape and page size ride inside it.
      query = `pageToken=${body.nextPageToken}&${AUTH}`;
    }
    throw new Error('did not finish');
  },
  'link header': (entity, pageSize) => {
    const rows: unknown[] = [];
    let url: string | undefined = dataUrl(entity.pack, entity.name, `paginate=link&page_size=${pageSize}&${AUTH}`);
    for (let n = 0; url !== undefined && n < MAX_PAGES; n++) {
      const { body, link }: Response = authedGet(url);
      rows.push(...body.data);
      url = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
    }
    if (url !== undefined) throw new Error('did not finish');
    return rows;
  },
};

/** The generic client: start in some style, then follow nextLink alone. */
function followNextLink(firstQuery: string): Client {
  return (entity, pageSize) => {
    const rows: unknown[] = [];
    let url: string | undefined = dataUrl(entity.pack, entity.name, `${firstQuery}&page_size=${pageSize}&${AUTH}`);
    for (let n = 0; url !== undefined && n < MAX_PAGES; n++) {
      const { body }: Response = authedGet(url);
      rows.push(...body.data);
      url = body.nextLink;
    }
    if (url !== undefined) throw new Error('did not finish');
    return rows;
  };
}
const NEXT_LINK_STARTS = ['page=1', 'offset=0', 'paginate=cursor', 'paginate=token', 'paginate=link'];

const smallEntities = ENTITIES.filter((e) => e.count <= 10_000);
const allRows = (entity: EntityDefinition): Row[] => Array.from({ length: entity.count }, (_, i) => entity.row(i));
const candles = findEntity('stocks', 'candles');

describe('generic clients collect every row exactly once, in every style', () => {
  const cases = smallEntities.flatMap((entity) => [
    ...Object.entries(CLIENTS).map(([style, client]) => [`${entity.pack}/${entity.name}`, style, entity, client] as const),
    ...NEXT_LINK_STARTS.map((start) => [`${entity.pack}/${entity.name}`, `nextLink from ${start}`, entity, followNextLink(start)] as const),
  ]);

  it.each(cases)('when a client pages through %s by %s, then it gets total rows, in order, identical to the dataset', (_, __, entity, client) => {
    const expected = allRows(entity);
    const rows = client(entity, 97);
    expect(rows).toHaveLength(entity.count);
    // As JSON text: the same rows in the same order with the same keys. (jest's deep equality over thousands of
    // rows took most of this file's time; a difference is still shown, as the two texts.)
    expect(JSON.stringify(rows)).toBe(JSON.stringify(expected));
  });
});

describe('paging deep into the million candles', () => {
  const rowsFrom = (start: number, count: number) => Array.from({ length: count }, (_, i) => candles.row(start + i));

  it('when the last page numbers are asked for, then the last page is full, ends the walk, and the page after is empty', () => {
    const before = get(dataUrl('stocks', 'candles', 'page=19999')).body;
    expect(before.nextLink).toBe(dataUrl('stocks', 'candles', 'page=20000&page_size=50&shape=flat'));
    const last = get(before.nextLink!).body;
    expect(last.data).toEqual(rowsFrom(999_950, 50));
    expect(last.pagination).toMatchObject({ page: 20000, total_pages: 20000, has_more: false, next: null, next_url: null });
    expect(last.nextLink).toBeUndefined();
    const after = get(dataUrl('stocks', 'candles', 'page=20001')).body;
    expect(after.data).toEqual([]);
    expect(after.pagination).toMatchObject({ returned: 0, has_more: false, next: null });
  });

  it('when a deep offset is asked for, then it returns the rows there and stops at the end', () => {
    const body = get(dataUrl('stocks', 'candles', 'offset=999990&limit=50')).body;
    expect(body.data).toEqual(rowsFrom(999_990, 10));
    expect(body.pagination).toMatchObject({ offset: 999_990, limit: 50, returned: 10, has_more: false });
  });

  it.each([
    ['cursor', 'cursor', 'cursor'],
    ['link', 'cursor', 'cursor'],
    ['token', 'token', 'pageToken'],
  ] as const)('when a %s position near the end is followed, then it reaches the last row exactly', (style, kind, parameter) => {
    const value = sealPosition({ kind, datasetVersion: DATASET_VERSION, entity: entityOrdinal(candles), shape: 0, pageSize: 50, offset: 999_900 }, SIGNING_KEY);
    let url: string | undefined = dataUrl('stocks', 'candles', `paginate=${style}&${parameter}=${value}`);
    const rows: unknown[] = [];
    while (url !== undefined) {
      const { body }: Response = get(url);
      rows.push(...body.data);
      url = body.nextLink;
    }
    expect(rows).toEqual(rowsFrom(999_900, 100));
  });

  it('when the first pages are walked by cursor, then they match the first page numbers', () => {
    let url: string | null = dataUrl('stocks', 'candles', 'paginate=cursor&page_size=400');
    for (let page = 1; page <= 3; page++) {
      const { body }: Response = get(url!);
      expect(body.data).toEqual(get(dataUrl('stocks', 'candles', `page=${page}&page_size=400`)).body.data);
      url = body.pagination.next;
    }
  });
});

describe('defaults and the body', () => {
  it('when no paging parameter is sent, then page 1 of 50 flat rows comes back', () => {
    const { body } = get(dataUrl('hr', 'employees'));
    expect(body.shape).toBe('flat');
    expect(body.pagination).toEqual({
      style: 'page',
      total: findEntity('hr', 'employees').count,
      page_size: 50,
      page_size_clamped: false,
      page: 1,
      total_pages: Math.ceil(findEntity('hr', 'employees').count / 50),
      returned: 50,
      has_more: true,
      next: '/prefix/playground/data/hr/employees?page=2&page_size=50&shape=flat',
      next_url: `${ROOT_URL}/hr/employees?page=2&page_size=50&shape=flat`,
    });
    expect(body.nextLink).toBe(body.pagination.next_url);
    expect(body.data).toHaveLength(50);
  });

  it.each(['page=1', 'offset=0', 'paginate=cursor', 'paginate=token', 'paginate=link'])(
    'when %s has more rows, then nextLink is in the body and equals next_url',
    (query) => {
      const { body } = get(dataUrl('cricket', 'teams', `${query}&page_size=5`));
      expect(body.nextLink).toBeDefined();
      expect(body.nextLink).toBe(body.pagination.next_url);
      expect(body.pagination.next_url).toBe(`${new URL(ROOT_URL).origin}${body.pagination.next}`);
    },
  );

  it.each(['page=4', 'offset=15', 'paginate=cursor', 'paginate=token', 'paginate=link'])(
    'when %s reaches the last page, then next is null and nextLink, nextPageToken and Link are absent',
    (query) => {
      const size = query.startsWith('paginate') ? 'page_size=16' : query.startsWith('offset') ? 'limit=5' : 'page_size=5';
      const { body, link } = get(dataUrl('cricket', 'teams', `${query}&${size}`));
      expect(body.data.length).toBeGreaterThan(0);
      expect(body.pagination).toMatchObject({ has_more: false, next: null, next_url: null });
      expect(body).not.toHaveProperty('nextLink');
      expect(body).not.toHaveProperty('nextPageToken');
      expect(link).toBe('');
    },
  );

  it('when token pagination is used, then nextPageToken is in the body and no other style shows one', () => {
    expect(get(dataUrl('hr', 'employees', 'paginate=token')).body.nextPageToken).toEqual(expect.any(String));
    for (const query of ['page=1', 'offset=0', 'paginate=cursor', 'paginate=link'])
      expect(get(dataUrl('hr', 'employees', query)).body).not.toHaveProperty('nextPageToken');
  });

  it('when offset is used with page_size, then page_size acts as the limit', () => {
    const { body } = get(dataUrl('hr', 'employees', 'offset=10&page_size=3'));
    expect(body.data).toEqual([10, 11, 12].map((i) => findEntity('hr', 'employees').row(i)));
    expect(body.pagination).toMatchObject({ offset: 10, limit: 3, page_size: 3 });
  });
});

describe('page past the end', () => {
  it.each([
    ['page beyond the last', 'page=999&page_size=50'],
    ['offset at the total', `offset=${findEntity('fpa', 'departments').count}`],
    ['offset far beyond', 'offset=123456789'],
    ['huge page number', 'page=999999999999999&page_size=1000'],
  ])('when asking for a %s, then data is empty with no next and no nextLink', (_, query) => {
    const { body, link } = get(dataUrl('fpa', 'departments', query));
    expect(body.data).toEqual([]);
    expect(body.pagination).toMatchObject({ returned: 0, has_more: false, next: null, next_url: null, total: findEntity('fpa', 'departments').count });
    expect(body).not.toHaveProperty('nextLink');
    expect(link).toBe('');
  });

  it('when a list of lists is past the end, then data still starts with the header', () => {
    expect(get(dataUrl('fpa', 'departments', 'page=9&shape=list-of-lists')).body.data).toEqual([findEntity('fpa', 'departments').fields.map((f) => f.name)]);
  });
});

describe('clamping', () => {
  it.each([
    ['page_size', 'page_size=5000', 5000],
    ['page_size', 'page_size=1001&paginate=cursor', 1001],
    ['limit', 'offset=0&limit=2000', 2000],
  ])('when %s is above the maximum, then 1000 rows come back and the page says it was clamped', (parameter, query, requested) => {
    const { body } = get(dataUrl('hr', 'employees', query));
    expect(body.data).toHaveLength(1000);
    expect(body.pagination['page_size']).toBe(1000);
    expect(body.pagination['page_size_clamped']).toBe(true);
    expect(body.pagination['note']).toBe(`${parameter} ${requested} is above the maximum of 1000; pages of 1000 rows are returned.`);
    expect(body.nextLink).toContain(parameter === 'limit' ? 'limit=1000' : 'page_size=1000');
  });

  it('when page_size is exactly the maximum, then it is not clamped and has no note', () => {
    const { body } = get(dataUrl('hr', 'employees', 'page_size=1000'));
    expect(body.data).toHaveLength(1000);
    expect(body.pagination['page_size_clamped']).toBe(false);
    expect(body.pagination).not.toHaveProperty('note');
  });

  it('when a clamped cursor page is followed with the original page_size, then it is accepted', () => {
    const first = get(dataUrl('hr', 'employees', 'paginate=cursor&page_size=5000')).body;
    const cursor = new URL(first.nextLink!).searchParams.get('cursor')!;
    const second = get(dataUrl('hr', 'employees', `paginate=cursor&page_size=5000&cursor=${cursor}`)).body;
    expect(second.data).toEqual(get(dataUrl('hr', 'employees', 'page=2&page_size=1000')).body.data);
  });
});

describe('invalid parameters', () => {
  const error = (query: string) => thrown(() => get(dataUrl('hr', 'employees', query)));

  it.each([
    ['page', 'page=0'],
    ['page', 'page=-1'],
    ['page', 'page=1.5'],
    ['page', 'page=abc'],
    ['page', 'page='],
    ['page', 'page=%2B2'],
    ['page', 'page=1e3'],
    ['page', 'page=9999999999999999'],
    ['page_size', 'page_size=0'],
    ['page_size', 'page_size=-5'],
    ['page_size', 'page_size=ten'],
    ['page_size', 'page_size=2.5&paginate=token'],
    ['offset', 'offset=-1'],
    ['offset', 'offset=0.5'],
    ['offset', 'offset=x'],
    ['limit', 'limit=0'],
    ['limit', 'limit=-3'],
    ['limit', 'offset=5&limit=abc'],
  ])('when %s is invalid (%s), then INVALID_ARGUMENT invalid_parameter naming it', (parameter, query) => {
    const e = error(query);
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_parameter' });
    expect(e.message).toContain(`The ${parameter} parameter`);
  });

  it('when offset is 0, then it is accepted', () => {
    expect(get(dataUrl('hr', 'employees', 'offset=0')).body.pagination['offset']).toBe(0);
  });

  it('when the shape is unknown, then INVALID_ARGUMENT names it and the allowed values', () => {
    const e = error('shape=tree');
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_parameter' });
    expect(e.message).toBe('Unknown shape "tree". Allowed values of shape: flat, list-of-lists, nested, nested-list.');
  });

  it('when paginate is unknown, then INVALID_ARGUMENT names it and the allowed values', () => {
    const e = error('paginate=scroll');
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_parameter' });
    expect(e.message).toContain('"scroll"');
    expect(e.message).toContain('cursor, token, link');
  });

  it.each([
    ['cursor', 'pageToken', 'cursor=abc&pageToken=def'],
    ['page', 'paginate=cursor', 'paginate=cursor&page=2'],
    ['offset', 'paginate=link', 'paginate=link&offset=5'],
    ['limit', 'paginate=token', 'paginate=token&limit=5'],
    ['page', 'cursor', 'cursor=abc&page=2'],
    ['offset', 'pageToken', 'pageToken=abc&offset=2'],
    ['page', 'offset', 'page=2&offset=5'],
    ['page', 'limit', 'page=2&limit=5'],
    ['limit', 'page_size', 'offset=0&limit=5&page_size=5'],
    ['cursor', 'paginate=token', 'paginate=token&cursor=abc'],
    ['pageToken', 'paginate=cursor', 'paginate=cursor&pageToken=abc'],
    ['pageToken', 'paginate=link', 'paginate=link&pageToken=abc'],
  ])('when %s is mixed with %s, then INVALID_ARGUMENT conflicting_parameters naming both', (first, second, query) => {
    const e = error(query);
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'conflicting_parameters' });
    expect(e.message).toContain(`${first} cannot be combined with ${second}`);
  });
});

describe('every entity in the registry has a stable ordinal', () => {
  it('when ordinals are listed, then they are distinct and fit the cursor byte', () => {
    const ordinals = ENTITIES.map((e) => entityOrdinal(e));
    expect(new Set(ordinals).size).toBe(ENTITIES.length);
    expect(Math.max(...ordinals)).toBeLessThan(256);
    expect(Math.min(...ordinals)).toBe(0);
  });
});
