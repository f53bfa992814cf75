import { createLogger } from '@sandbox/runtime';
import type { BucketStore } from '../../src/fair-share/bucket-store';
import { LeasedBudget, type Spent } from '../../src/fair-share/leased-budget';
import { MemoryBucketStore } from '../../src/fair-share/memory-bucket-store';
import { OutageNotice } from '../../src/fair-share/outage-notice';
import { fullBucket, take, type BucketPolicy, type BucketState, type Grant } from '../../src/fair-share/token-bucket';

const policy: BucketPolicy = { name: 'app', perSecond: 50, burst: 100 };

/** A clock the test moves. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const quiet = (clock: () => number) => new OutageNotice(createLogger('gateway', 'silent'), clock);

/** What Redis does for every gateway, without Redis: one bucket per key, taken from asynchronously, calls counted. */
class SharedFakeStore implements BucketStore {
  readonly shared = true;
  calls = 0;
  failing = false;
  private readonly buckets = new Map<string, BucketState>();
  async take(key: string, p: BucketPolicy, want: number, now: number): Promise<Grant> {
    this.calls++;
    await Promise.resolve();
    if (this.failing) throw new Error('connection is closed');
    const bucket = this.buckets.get(key) ?? fullBucket(p, now);
    this.buckets.set(key, bucket);
    return take(bucket, p, want, now);
  }
}

const spendAll = async (budget: LeasedBudget, key: string, n: number, p = policy): Promise<Spent[]> => {
  const spent: Spent[] = [];
  for (let i = 0; i < n; i++) spent.push(await budget.spend(key, p));
  return spent;
};
const accepted = (spent: Spent[]) => spent.filter((s) => s.ok).length;

describe('a budget in memory (one gateway)', () => {
  it('when the burst is spent, then the next request is refused with the wait until a token returns; the answers count down', () => {
    const clock = manualClock();
    const budget = new LeasedBudget(new MemoryBucketStore(), clock.now, quiet(clock.now));
    const first = budget.spend('app_a', policy) as Spent;
    expect(first).toEqual({ ok: true, state: { policy, remaining: 99, resetSeconds: 1 } });
    for (let i = 0; i < 99; i++) expect((budget.spend('app_a', policy) as Spent).ok).toBe(true);
    const refused = budget.spend('app_a', policy) as Spent;
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1, state: { policy, remaining: 0, resetSeconds: 1 } });
    // Another key has its own budget.
    expect((budget.spend('app_b', policy) as Spent).ok).toBe(true);
  });

  it('when time moves on, then exactly the refilled tokens are spent again (no sleeping: the clock is injected)', () => {
    const clock = manualClock();
    const slow: BucketPolicy = { name: 'address', perSecond: 0.1, burst: 3 };
    const budget = new LeasedBudget(new MemoryBucketStore(), clock.now, quiet(clock.now));
    const spent = [0, 1, 2, 3].map(() => budget.spend('10.0.0.1', slow) as Spent);
    expect(spent.map((s) => s.ok)).toEqual([true, true, true, false]);
    expect(spent[3]).toMatchObject({ retryAfterSeconds: 10 });
    clock.advance(9_999);
    expect((budget.spend('10.0.0.1', slow) as Spent).ok).toBe(false);
    clock.advance(1);
    expect((budget.spend('10.0.0.1', slow) as Spent).ok).toBe(true);
    expect((budget.spend('10.0.0.1', slow) as Spent).ok).toBe(false);
  });

  it('when a request is refunded (an exempt app), then its token is spent by the next request instead', () => {
    const clock = manualClock();
    const tiny: BucketPolicy = { name: 'address', perSecond: 0.01, burst: 1 };
    const budget = new LeasedBudget(new MemoryBucketStore(), clock.now, quiet(clock.now));
    expect((budget.spend('10.0.0.1', tiny) as Spent).ok).toBe(true);
    budget.refund('10.0.0.1');
    expect((budget.spend('10.0.0.1', tiny) as Spent).ok).toBe(true);
    expect((budget.spend('10.0.0.1', tiny) as Spent).ok).toBe(false);
  });

  it('when the store answers at once, then a request is decided without a promise (the cached data page stays synchronous)', () => {
    const clock = manualClock();
    const budget = new LeasedBudget(new MemoryBucketStore(), clock.now, quiet(clock.now));
    expect(budget.spend('app_a', policy)).not.toBeInstanceOf(Promise);
  });
});

describe('a budget leased from a shared store (Redis, several gateways)', () => {
  it('when requests arrive, then tokens are leased max(1, burst/10) at a time: one store call per ten requests', async () => {
    const clock = manualClock();
    const store = new SharedFakeStore();
    const budget = new LeasedBudget(store, clock.now, quiet(clock.now));
    expect(accepted(await spendAll(budget, 'app_a', 30))).toBe(30);
    expect(store.calls).toBe(3);
    // The request that needs a new lease waits for it; those spending a lease held are decided at once, without a promise.
    const leasing = budget.spend('app_a', policy);
    expect(leasing).toBeInstanceOf(Promise);
    await leasing;
    expect(budget.spend('app_a', policy)).not.toBeInstanceOf(Promise);
  });

  it('when many requests arrive while a lease is on its way, then they wait for it rather than each asking the store', async () => {
    const clock = manualClock();
    const store = new SharedFakeStore();
    const budget = new LeasedBudget(store, clock.now, quiet(clock.now));
    const spent = await Promise.all(Array.from({ length: 10 }, () => budget.spend('app_a', policy)));
    expect(accepted(spent)).toBe(10);
    expect(store.calls).toBe(1);
  });

  it('when two gateways spend one budget, then together they get the burst plus at most one chunk each, and are refused after', async () => {
    const clock = manualClock();
    const store = new SharedFakeStore();
    const a = new LeasedBudget(store, clock.now, quiet(clock.now));
    const b = new LeasedBudget(store, clock.now, quiet(clock.now));
    // Each holds a chunk it leased earlier; the bucket refills meanwhile.
    await a.spend('app_a', policy);
    await b.spend('app_a', policy);
    clock.advance(60_000);
    let served = 0;
    for (let i = 0; i < 150; i++) if ((await (i % 2 ? a : b).spend('app_a', policy)).ok) served++;
    // Burst 100, chunk 10: the 9 + 9 tokens still held are the overshoot (at most 2 × 10).
    expect(served).toBeGreaterThanOrEqual(100);
    expect(served).toBeLessThanOrEqual(100 + 2 * 10);
    const refused = await a.spend('app_a', policy);
    expect(refused.ok).toBe(false);
  });

  it('when the store is unreachable, then requests pass uncounted (fail open) with one warning, and it is asked again a second later', async () => {
    const clock = manualClock();
    const store = new SharedFakeStore();
    const warnings: unknown[] = [];
    const logger = { ...createLogger('gateway', 'silent'), warn: (...args: unknown[]) => warnings.push(args) } as never;
    const budget = new LeasedBudget(store, clock.now, new OutageNotice(logger, clock.now));
    store.failing = true;
    const spent = await spendAll(budget, 'app_a', 500);
    expect(spent.every((s) => s.ok && s.state === undefined)).toBe(true);
    expect(store.calls).toBe(1);
    expect(warnings).toHaveLength(1);
    clock.advance(1000);
    store.failing = false;
    const counted = await budget.spend('app_a', policy);
    expect(counted).toMatchObject({ ok: true, state: { remaining: 99 } });
    expect(store.calls).toBe(2);
  });
});
