import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { requireStoreUrls } from '@sandbox/testing';
import type { BucketStore } from '../../src/fair-share/bucket-store';
import { MemoryBucketStore } from '../../src/fair-share/memory-bucket-store';
import { MemorySlotCounter } from '../../src/fair-share/memory-slot-counter';
import { RedisBucketStore } from '../../src/fair-share/redis-bucket-store';
import { RedisSlotCounter } from '../../src/fair-share/redis-slot-counter';
import type { SlotCounter } from '../../src/fair-share/slot-counter';
import type { BucketPolicy } from '../../src/fair-share/token-bucket';

/*
 * One suite for both adapters of each store: the Redis script must do what
 * the memory store's arithmetic does (token-bucket.ts), given the same clock.
 */
let redis: Redis;
beforeAll(() => {
  redis = new Redis(requireStoreUrls().redisUrl);
});
afterAll(() => redis.disconnect());
const prefix = () => `test:fair-share:${randomBytes(6).toString('hex')}:`;

const policy: BucketPolicy = { name: 'app', perSecond: 50, burst: 100 };

describe.each([
  ['memory', () => new MemoryBucketStore() as BucketStore],
  ['Redis', () => new RedisBucketStore(redis, prefix()) as BucketStore],
])('the %s bucket store', (_name, make) => {
  it('when a key is new, then its bucket is full; taking leases whole tokens, partly when fewer are left', async () => {
    const store = make();
    expect(await store.take('app:a', policy, 10, 1_000)).toEqual({ granted: 10, left: 90 });
    expect(await store.take('app:a', policy, 95, 1_000)).toEqual({ granted: 90, left: 0 });
    expect(await store.take('app:a', policy, 10, 1_000)).toEqual({ granted: 0, left: 0 });
  });

  it('when its clock moves, then it refills at the policy rate (fractions kept), never past the burst', async () => {
    const store = make();
    await store.take('app:b', policy, 100, 1_000);
    const grant = await store.take('app:b', policy, 10, 1_130); // 130 ms at 50/s: 6.5 tokens
    expect(grant.granted).toBe(6);
    expect(grant.left).toBeCloseTo(0.5);
    expect((await store.take('app:b', policy, 1000, 600_000)).granted).toBe(100);
  });
});

describe('the Redis bucket store', () => {
  it('when a bucket is written, then its key expires once it would be full again, so idle keys do not pile up', async () => {
    const keys = prefix();
    await new RedisBucketStore(redis, keys).take('c', policy, 100, 1_000);
    const ttl = await redis.pttl(`${keys}app:c`);
    // Empty at 50/s: full in 2 s, plus a second.
    expect(ttl).toBeGreaterThan(2_000);
    expect(ttl).toBeLessThanOrEqual(3_000);
  });
});

describe.each([
  ['memory', () => new MemorySlotCounter() as SlotCounter],
  ['Redis', () => new RedisSlotCounter(redis, 120_000, prefix()) as SlotCounter],
])('the %s slot counter', (_name, make) => {
  const claims = [
    { key: 'address:10.0.0.1', cap: 2 },
    { key: 'app:a', cap: 3 },
  ];

  it('when slots are taken, then all claims count together up to the first cap; a refusal takes none; a release frees one', async () => {
    const slots = make();
    expect(await slots.hold(claims, 's1', 1_000)).toEqual({ held: true, inUse: [1, 1] });
    expect(await slots.hold(claims, 's2', 1_000)).toEqual({ held: true, inUse: [2, 2] });
    expect(await slots.hold(claims, 's3', 1_000)).toEqual({ held: false, full: 0 });
    // The refusal took no app slot: the app alone still has one left.
    expect(await slots.hold([claims[1]!], 's4', 1_000)).toEqual({ held: true, inUse: [3] });
    slots.release(claims, 's1');
    await new Promise((resolve) => setTimeout(resolve, 50)); // Redis's release is sent, not awaited
    expect(await slots.hold([claims[0]!], 's5', 1_000)).toEqual({ held: true, inUse: [2] });
  });
});

describe('the Redis slot counter', () => {
  it('when a gateway never gives its slots back (it crashed), then they lapse on their own while others keep counting', async () => {
    const slots = new RedisSlotCounter(redis, 120_000, prefix());
    const cap = [{ key: 'address:10.0.0.2', cap: 1 }];
    expect(await slots.hold(cap, 'crashed', 1_000)).toMatchObject({ held: true });
    expect(await slots.hold(cap, 'next', 60_000)).toMatchObject({ held: false });
    expect(await slots.hold(cap, 'next', 121_001)).toMatchObject({ held: true });
  });
});
