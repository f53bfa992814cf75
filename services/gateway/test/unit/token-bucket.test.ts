import { MemoryBucketStore } from '../../src/fair-share/memory-bucket-store';
import { bucketItem, concurrencyItem, writeLimitFields } from '../../src/fair-share/rate-limit-fields';
import { fullBucket, msUntilNextToken, take, type BucketPolicy } from '../../src/fair-share/token-bucket';

const policy: BucketPolicy = { name: 'app', perSecond: 50, burst: 100 };

describe('the token bucket', () => {
  it('when a bucket was never seen, then it is full: the whole burst at once, and no more', () => {
    const bucket = fullBucket(policy, 0);
    expect(take(bucket, policy, 100, 0)).toEqual({ granted: 100, left: 0 });
    expect(take(bucket, policy, 1, 0).granted).toBe(0);
  });

  it('when time passes, then it refills at its rate, never beyond its burst', () => {
    const bucket = fullBucket(policy, 0);
    take(bucket, policy, 100, 0);
    expect(take(bucket, policy, 100, 100).granted).toBe(5); // 100 ms at 50/s
    expect(take(bucket, policy, 1000, 60_000).granted).toBe(100);
  });

  it('when several tokens are wanted and fewer are there, then it grants what it has (a partial lease)', () => {
    const bucket = fullBucket(policy, 0);
    take(bucket, policy, 93, 0);
    expect(take(bucket, policy, 10, 0)).toEqual({ granted: 7, left: 0 });
  });

  it('when the clock goes back (another gateway is a little behind), then nothing is refilled and nothing breaks', () => {
    const bucket = fullBucket(policy, 10_000);
    take(bucket, policy, 100, 10_000);
    expect(take(bucket, policy, 1, 9_000).granted).toBe(0);
    expect(take(bucket, policy, 1, 10_020).granted).toBe(1);
  });

  it('when it holds a fraction, then the next whole token is that fraction away', () => {
    expect(msUntilNextToken(0.5, policy)).toBeCloseTo(10);
    expect(msUntilNextToken(3, { name: 'address', perSecond: 0.1, burst: 5 })).toBeCloseTo(10_000);
  });

  it('when the memory store holds buckets that have refilled, then it forgets them, so memory follows recent clients', () => {
    const store = new MemoryBucketStore();
    for (let i = 0; i < 50; i++) store.take(`address:10.0.0.${i}`, policy, 1, 0);
    expect(store.size).toBe(50);
    // A token takes 20 ms to come back; the sweep runs every 10 s.
    store.take('address:10.0.1.1', policy, 1, 10_000);
    expect(store.size).toBe(1);
  });
});

describe('the RateLimit fields', () => {
  it('when a bucket is written, then its policy reads q = burst over w = burst/rate seconds, and its limit r and t (draft-11 syntax)', () => {
    const headers = {};
    writeLimitFields(headers, [bucketItem(policy, 42, 1)]);
    expect(headers).toEqual({ 'RateLimit-Policy': '"app";q=100;w=2', RateLimit: '"app";r=42;t=1' });
  });

  it('when several budgets were spent, then each field is one list, in the order spent', () => {
    const headers = {};
    const address: BucketPolicy = { name: 'address', perSecond: 0.5, burst: 3 };
    writeLimitFields(headers, [bucketItem(address, 2, 2), bucketItem(policy, 99, 1), concurrencyItem('address-slow', 4, 1)]);
    expect(headers).toEqual({
      'RateLimit-Policy': '"address";q=3;w=6, "app";q=100;w=2, "address-slow";q=4;qu="concurrent-requests"',
      RateLimit: '"address";r=2;t=2, "app";r=99;t=1, "address-slow";r=3',
    });
  });
});
