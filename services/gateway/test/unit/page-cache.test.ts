import { PageCache, type CachedPage } from '../../src/caches/page-cache';

const page = (bytes: number, scope = 'hr:read'): CachedPage => ({
  bodyJson: new Uint8Array(bytes),
  etag: '"e"',
  link: '',
  scope,
  paginationStyle: 'page',
  lastPage: false,
  entityRows: 1,
});

describe('PageCache', () => {
  it('when a page was stored, then it is served until its TTL passes, and not at it', () => {
    let now = 1_000_000;
    const cache = new PageCache(10_000, 40, () => now);
    cache.set('a', page(100));
    now += 39;
    expect(cache.get('a')?.bodyJson.byteLength).toBe(100);
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size.bytes).toBe(0);
  });

  it('when over its byte budget, then the least recently used pages go first', () => {
    const cache = new PageCache(900, 60_000);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, page(200)); // 4 x 201 bytes
    cache.get('a'); // a is now more recent than b
    cache.set('e', page(200));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('e')).toBeDefined();
    expect(cache.size.bytes).toBeLessThanOrEqual(900);
  });

  it('when a page is larger than a quarter of the budget, then it is not kept', () => {
    const cache = new PageCache(1000, 60_000);
    cache.set('small', page(100));
    cache.set('huge', page(600));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBeDefined();
  });

  it('when the budget is zero, then nothing is kept', () => {
    const cache = new PageCache(0, 60_000);
    cache.set('a', page(1));
    expect(cache.get('a')).toBeUndefined();
  });

  it('when a key is stored again, then the byte count does not double', () => {
    const cache = new PageCache(10_000, 60_000);
    cache.set('a', page(100));
    cache.set('a', page(100));
    expect(cache.size).toEqual({ entries: 1, bytes: 100 + 1 });
  });
});
