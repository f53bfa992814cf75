import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { eventually, requireStoreUrls, uniqueId } from '@sandbox/testing';
import type { EphemeralStore } from '../../src/stores/ephemeral-store';
import { MemoryEphemeralStore } from '../../src/stores/memory-ephemeral-store';
import { RedisEphemeralStore } from '../../src/stores/redis-ephemeral-store';

// Real Redis expires keys on its own clock; on a busy CI machine a short
// lifetime can take a while to be seen as over, so the Redis expiry checks poll
// for up to REDIS_EXPIRY_GRACE_MS and the tests get room for that.
jest.setTimeout(30_000);

/** Long enough that a value is certainly still there however slow the machine. */
const LONG_TTL_MS = 60_000;
/** Short enough that a real store's expiry is quick to observe. */
const SHORT_TTL_MS = 200;
const REDIS_EXPIRY_GRACE_MS = 10_000;
/** An App ID of the form identity issues (app_ and 22 characters). */
const appId = () => `app_${randomBytes(16).toString('base64url').slice(0, 22)}`;

/** How a contract test drives one adapter's notion of time. */
interface Adapter {
  open(): Promise<EphemeralStore>;
  /** Moves the store's clock on by ms; real Redis keeps its own time, so there it does nothing. */
  letTimePass(ms: number): void;
  /** How long after its lifetime a value may still be seen: none with a clock we move, generous with a real one. */
  expiryGraceMs: number;
}

/** One contract, two adapters: the embedded default must behave like Redis. */
function describeEphemeralStoreContract(name: string, adapter: Adapter) {
  describe(`EphemeralStore contract: ${name}`, () => {
    let store: EphemeralStore;
    beforeAll(async () => {
      store = await adapter.open();
    });
    afterAll(async () => store.close());

    /** Passes once the key reads as absent, at once or (for a real clock) within the adapter's grace. */
    const expectGone = async (key: string) => {
      if (adapter.expiryGraceMs === 0) expect(await store.get(key)).toBeUndefined();
      else
        await eventually(
          () => store.get(key),
          (value) => value === undefined,
          adapter.expiryGraceMs,
          25,
        );
    };

    it('when a value is put, then it can be read before it expires', async () => {
      const key = uniqueId('k');
      expect(await store.put(key, 'v1', LONG_TTL_MS)).toBe(true);
      expect(await store.get(key)).toBe('v1');
    });

    it('when a claim and a put are written together, then both land once; a second claim of the key changes nothing', async () => {
      const [claimed, saved, other] = [uniqueId('c'), uniqueId('s'), uniqueId('o')];
      expect(await store.claimAndPut({ key: claimed, value: 'used', ttlMs: LONG_TTL_MS }, { key: saved, value: 'next', ttlMs: LONG_TTL_MS })).toBe(true);
      expect([await store.get(claimed), await store.get(saved)]).toEqual(['used', 'next']);
      expect(await store.claimAndPut({ key: claimed, value: 'again', ttlMs: LONG_TTL_MS }, { key: other, value: 'x', ttlMs: LONG_TTL_MS })).toBe(false);
      expect([await store.get(claimed), await store.get(other)]).toEqual(['used', undefined]);
    });

    it('when its lifetime has passed, then it is gone', async () => {
      const key = uniqueId('k');
      await store.put(key, 'v1', SHORT_TTL_MS);
      adapter.letTimePass(SHORT_TTL_MS);
      await expectGone(key);
      expect(await store.take(key)).toBeUndefined();
    });

    it('when a key is put again, then the new lifetime replaces the old one', async () => {
      const key = uniqueId('k');
      await store.put(key, 'long', LONG_TTL_MS);
      await store.put(key, 'short', SHORT_TTL_MS);
      adapter.letTimePass(SHORT_TTL_MS);
      await expectGone(key);
    });

    it('when a value is taken, then the first take gets it and the second gets nothing', async () => {
      const key = uniqueId('code');
      await store.put(key, 'once', LONG_TTL_MS);
      const [a, b] = await Promise.all([store.take(key), store.take(key)]);
      expect([a, b].filter((v) => v === 'once')).toHaveLength(1);
      expect(await store.get(key)).toBeUndefined();
    });

    it('when put with onlyIfAbsent over a live key, then it is refused and the old value stays', async () => {
      const key = uniqueId('nonce');
      expect(await store.put(key, 'first', LONG_TTL_MS, { onlyIfAbsent: true })).toBe(true);
      expect(await store.put(key, 'second', LONG_TTL_MS, { onlyIfAbsent: true })).toBe(false);
      expect(await store.get(key)).toBe('first');
    });

    it('when put with onlyIfAbsent over an expired key, then it succeeds', async () => {
      const key = uniqueId('nonce');
      await store.put(key, 'old', SHORT_TTL_MS);
      adapter.letTimePass(SHORT_TTL_MS);
      await expectGone(key);
      expect(await store.put(key, 'new', LONG_TTL_MS, { onlyIfAbsent: true })).toBe(true);
      expect(await store.get(key)).toBe('new');
    });

    it('when deleted, then it is gone; deleting a missing key is fine', async () => {
      const key = uniqueId('k');
      await store.put(key, 'v', LONG_TTL_MS);
      await store.delete(key);
      await store.delete(key);
      expect(await store.get(key)).toBeUndefined();
    });

    it('when entries are forgotten by a match, then each whose key or value matches is gone, the others stay, and the count says how many', async () => {
      const [gone, other] = [appId(), appId()];
      const names = (text: string) => text.includes(gone);
      const keyNaming = uniqueId(`oauth2:by-key:${gone}:`);
      const valueNaming = uniqueId('oauth2:rt:');
      const otherApps = uniqueId('oauth2:rt:');
      const nobody = uniqueId('oauth1:nonce:');
      await store.put(keyNaming, 'x', LONG_TTL_MS);
      await store.put(valueNaming, JSON.stringify({ clientId: gone, grantId: 'g' }), LONG_TTL_MS);
      await store.put(otherApps, JSON.stringify({ clientId: other }), LONG_TTL_MS);
      await store.put(nobody, '1700000000', LONG_TTL_MS);
      expect(await store.forgetMatching(names)).toBe(2);
      expect([await store.get(keyNaming), await store.get(valueNaming)]).toEqual([undefined, undefined]);
      expect([await store.get(otherApps), await store.get(nobody)]).toEqual([JSON.stringify({ clientId: other }), '1700000000']);
      expect(await store.forgetMatching(names)).toBe(0);
    });

    it('when more entries match than one SCAN step reads, then all of them are forgotten', async () => {
      const gone = appId();
      const keys = Array.from({ length: 1_200 }, (_, i) => uniqueId(`oauth2:code:${i}:`));
      await Promise.all(keys.map((key, i) => store.put(key, i % 2 ? JSON.stringify({ clientId: gone }) : 'kept', LONG_TTL_MS)));
      expect(await store.forgetMatching((text) => text.includes(gone))).toBe(600);
      const left = await Promise.all(keys.map((key) => store.get(key)));
      expect(left.filter((value) => value !== undefined)).toEqual(Array(600).fill('kept'));
    });

    it('when pinged while reachable, then ping resolves', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}

// The memory store judges lifetimes by a clock the test moves: no sleeps, no dependence on how busy the machine is.
let memoryNow = Date.UTC(2030, 0, 1);
describeEphemeralStoreContract('memory', {
  open: async () => new MemoryEphemeralStore({ now: () => memoryNow }),
  letTimePass: (ms) => {
    memoryNow += ms;
  },
  expiryGraceMs: 0,
});

const redisPrefix = `test:${uniqueId()}:`;
describeEphemeralStoreContract('redis', {
  open: async () => {
    const store = new RedisEphemeralStore(requireStoreUrls().redisUrl, redisPrefix);
    await store.connect();
    return store;
  },
  letTimePass: () => undefined,
  expiryGraceMs: REDIS_EXPIRY_GRACE_MS,
});

describe('MemoryEphemeralStore lifetimes, to the millisecond', () => {
  let now: number;
  let store: MemoryEphemeralStore;
  beforeEach(() => {
    now = 1_000_000;
    store = new MemoryEphemeralStore({ now: () => now });
  });
  afterEach(async () => store.close());

  it('when 1 ms of the lifetime is left, then the value is there; when it has run out, then it is gone', async () => {
    await store.put('k', 'v', 300);
    now += 299;
    expect(await store.get('k')).toBe('v');
    now += 1;
    expect(await store.get('k')).toBeUndefined();
  });

  it('when full, then a new key is refused as a 503 naming the limit, unless expired entries make room; a key it holds may still change', async () => {
    const small = new MemoryEphemeralStore({ now: () => now, maxEntries: 2 });
    try {
      await small.put('a', '1', 300);
      await small.put('b', '1', 60_000);
      await expect(small.put('c', '1', 300)).rejects.toMatchObject({ code: 'memory_full', message: expect.stringContaining('OAUTH_MEMORY_MAX_ENTRIES') });
      await expect(small.putIfGreater('d', 1, 300)).rejects.toMatchObject({ code: 'memory_full' });
      expect(await small.put('b', '2', 60_000)).toBe(true);
      now += 300; // 'a' has expired: its room is taken back
      expect(await small.put('c', '1', 300)).toBe(true);
      expect(await small.get('c')).toBe('1');
    } finally {
      await small.close();
    }
  });

  it('when an expired entry matches, then it is dropped but not counted as forgotten', async () => {
    await store.put('live', 'app_x', 60_000);
    await store.put('expired', 'app_x', 300);
    now += 300;
    expect(await store.forgetMatching((text) => text.includes('app_x'))).toBe(1);
  });

  it('when an onlyIfAbsent put is refused, then the live value keeps its own lifetime', async () => {
    await store.put('k', 'first', 300);
    expect(await store.put('k', 'second', 60_000, { onlyIfAbsent: true })).toBe(false);
    now += 300;
    expect(await store.get('k')).toBeUndefined();
  });
});

// Redis, not this process, enforces the lifetime (SET … PX), so check what Redis
// itself reports for the key rather than timing reads.
describe('RedisEphemeralStore lifetimes, as Redis reports them', () => {
  let store: RedisEphemeralStore;
  let redis: Redis;
  const pttl = (key: string) => redis.pttl(redisPrefix + key);
  // However slow the machine, a PTTL read right after the put has lost far less than this.
  const expectFreshLifetime = async (key: string, ttlMs: number) => {
    const remaining = await pttl(key);
    expect(remaining).toBeLessThanOrEqual(ttlMs);
    expect(remaining).toBeGreaterThan(ttlMs - 10_000);
  };

  beforeAll(async () => {
    store = new RedisEphemeralStore(requireStoreUrls().redisUrl, redisPrefix);
    await store.connect();
    redis = new Redis(requireStoreUrls().redisUrl);
  });
  afterAll(async () => {
    await store.close();
    redis.disconnect();
  });

  it('when a value is put, then Redis holds it with that lifetime in milliseconds', async () => {
    const key = uniqueId('k');
    await store.put(key, 'v', LONG_TTL_MS);
    await expectFreshLifetime(key, LONG_TTL_MS);
  });

  it('when a value is put with onlyIfAbsent, then Redis holds it with that lifetime', async () => {
    const key = uniqueId('nonce');
    await store.put(key, 'v', LONG_TTL_MS, { onlyIfAbsent: true });
    await expectFreshLifetime(key, LONG_TTL_MS);
  });

  it('when an onlyIfAbsent put is refused, then the live value keeps its own lifetime', async () => {
    const key = uniqueId('nonce');
    await store.put(key, 'first', LONG_TTL_MS, { onlyIfAbsent: true });
    expect(await store.put(key, 'second', 1_000, { onlyIfAbsent: true })).toBe(false);
    await expectFreshLifetime(key, LONG_TTL_MS);
  });

  it('when a value is taken or deleted, then Redis no longer has the key', async () => {
    const [taken, deleted] = [uniqueId('code'), uniqueId('k')];
    await store.put(taken, 'v', LONG_TTL_MS);
    await store.put(deleted, 'v', LONG_TTL_MS);
    await store.take(taken);
    await store.delete(deleted);
    expect([await pttl(taken), await pttl(deleted)]).toEqual([-2, -2]); // -2: no such key
  });
});

describe('RedisEphemeralStore when Redis is unreachable', () => {
  it('then ping rejects instead of hanging', async () => {
    const store = new RedisEphemeralStore('redis://127.0.0.1:1');
    await expect(store.connect()).rejects.toThrow();
    await expect(store.ping()).rejects.toThrow();
    await store.close();
  });
});

// putIfGreater: a count that only goes up (Digest's nonce count), advanced atomically.
let putIfGreaterNow = Date.UTC(2030, 0, 1);
const putIfGreaterPrefix = `test:${uniqueId()}:`;
describe.each<[string, Adapter]>([
  [
    'memory',
    {
      open: async () => new MemoryEphemeralStore({ now: () => putIfGreaterNow }),
      letTimePass: (ms) => {
        putIfGreaterNow += ms;
      },
      expiryGraceMs: 0,
    },
  ],
  [
    'redis',
    {
      open: async () => {
        const store = new RedisEphemeralStore(requireStoreUrls().redisUrl, putIfGreaterPrefix);
        await store.connect();
        return store;
      },
      letTimePass: () => undefined,
      expiryGraceMs: REDIS_EXPIRY_GRACE_MS,
    },
  ],
])('EphemeralStore contract, putIfGreater: %s', (_name, adapter) => {
  let store: EphemeralStore;
  beforeAll(async () => {
    store = await adapter.open();
  });
  afterAll(async () => store.close());

  it('when the key is absent, then the value is stored and readable', async () => {
    const key = uniqueId('nc');
    expect(await store.putIfGreater(key, 1, LONG_TTL_MS)).toBe(true);
    expect(await store.get(key)).toBe('1');
  });

  it('when the value is greater, then it replaces the old one; equal or smaller, then refused and the old one stays', async () => {
    const key = uniqueId('nc');
    await store.putIfGreater(key, 3, LONG_TTL_MS);
    expect(await store.putIfGreater(key, 3, LONG_TTL_MS)).toBe(false);
    expect(await store.putIfGreater(key, 2, LONG_TTL_MS)).toBe(false);
    expect(await store.get(key)).toBe('3');
    expect(await store.putIfGreater(key, 10, LONG_TTL_MS)).toBe(true);
    expect(await store.get(key)).toBe('10');
    expect(await store.putIfGreater(key, 0xffffffff, LONG_TTL_MS)).toBe(true);
    expect(await store.get(key)).toBe(String(0xffffffff));
  });

  it('when many callers race with the same value, then exactly one succeeds', async () => {
    const key = uniqueId('nc');
    const results = await Promise.all(Array.from({ length: 20 }, () => store.putIfGreater(key, 5, LONG_TTL_MS)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('when the key holds a value that is not a number, then refused and left alone', async () => {
    const key = uniqueId('nc');
    await store.put(key, 'not-a-number', LONG_TTL_MS);
    expect(await store.putIfGreater(key, 7, LONG_TTL_MS)).toBe(false);
    expect(await store.get(key)).toBe('not-a-number');
  });

  it('when its lifetime has passed, then it is gone and any count is accepted again', async () => {
    const key = uniqueId('nc');
    await store.putIfGreater(key, 9, SHORT_TTL_MS);
    adapter.letTimePass(SHORT_TTL_MS);
    if (adapter.expiryGraceMs === 0) expect(await store.get(key)).toBeUndefined();
    else
      await eventually(
        () => store.get(key),
        (value) => value === undefined,
        adapter.expiryGraceMs,
        25,
      );
    expect(await store.putIfGreater(key, 1, LONG_TTL_MS)).toBe(true);
  });
});

describe('RedisEphemeralStore putIfGreater lifetimes, as Redis reports them', () => {
  let store: RedisEphemeralStore;
  let redis: Redis;
  const pttl = (key: string) => redis.pttl(putIfGreaterPrefix + key);
  beforeAll(async () => {
    store = new RedisEphemeralStore(requireStoreUrls().redisUrl, putIfGreaterPrefix);
    await store.connect();
    redis = new Redis(requireStoreUrls().redisUrl);
  });
  afterAll(async () => {
    await store.close();
    redis.disconnect();
  });

  it('when a greater value is stored, then it takes the new lifetime; a refused one keeps the old lifetime', async () => {
    const key = uniqueId('nc');
    await store.putIfGreater(key, 1, LONG_TTL_MS);
    expect(await pttl(key)).toBeGreaterThan(LONG_TTL_MS - 10_000);
    await store.putIfGreater(key, 1, 1_000);
    expect(await pttl(key)).toBeGreaterThan(LONG_TTL_MS - 10_000);
    await store.putIfGreater(key, 2, 30_000);
    const remaining = await pttl(key);
    expect(remaining).toBeLessThanOrEqual(30_000);
    expect(remaining).toBeGreaterThan(20_000);
  });
});

describe('MemoryEphemeralStore putIfGreater lifetimes, to the millisecond', () => {
  it('when a refused count meets a live one, then the live one keeps its own lifetime', async () => {
    let now = 1_000_000;
    const store = new MemoryEphemeralStore({ now: () => now });
    await store.putIfGreater('k', 2, 300);
    expect(await store.putIfGreater('k', 1, 60_000)).toBe(false);
    now += 299;
    expect(await store.get('k')).toBe('2');
    now += 1;
    expect(await store.get('k')).toBeUndefined();
    await store.close();
  });
});
