import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AppError } from '@sandbox/runtime';
import { refusalOf } from '@sandbox/testing';
import { addressKey, SIGN_IN_POLICY, SignInThrottle, slowDownMs, type SignInAttempt } from '../../src/domain/sign-in-throttle';
import { signInLimiters } from '../../src/stores/sign-in-limiters';

const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;
const T0 = new Date('2030-01-01T00:00:00.000Z');

/*
 * The library's memory limiters keep time with Date.now(); only Date is faked
 * here, so windows pass when the test says so and never because the machine
 * was slow. The slow-down is recorded, not slept.
 */
describe('sign-in throttle', () => {
  let waits: number[];
  let throttle: SignInThrottle;

  beforeEach(() => {
    jest.useFakeTimers({
      now: T0,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    waits = [];
    throttle = new SignInThrottle(signInLimiters(), async (ms) => void waits.push(ms));
  });
  afterEach(() => jest.useRealTimers());

  const fail = async (email: string, address: string): Promise<SignInAttempt> => {
    const attempt = await throttle.admit(email, address);
    attempt.failed();
    return attempt;
  };
  const advance = (ms: number) => jest.setSystemTime(Date.now() + ms);

  describe('the per-account slow-down', () => {
    it.each([
      [0, 0],
      [4, 0],
      [5, 250],
      [6, 500],
      [7, 1000],
      [8, 2000],
      [9, 2000],
      [10_000, 2000],
      [Number.MAX_SAFE_INTEGER, 2000],
    ])('after %i failures, waits %i ms', (failures, ms) => {
      expect(slowDownMs(failures)).toBe(ms);
    });
  });

  describe('the address key', () => {
    it('counts an IPv4 address as itself, an IPv4-mapped IPv6 address as its IPv4 address', () => {
      expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
      expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    });
    it('counts IPv6 addresses by their /64, however they are written', () => {
      expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
      expect(addressKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
      expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    });
    it('drops a port a proxy appended, and brackets around IPv6', () => {
      expect(addressKey('203.0.113.7:51234')).toBe('203.0.113.7');
      expect(addressKey('[2001:db8:1:2::1]:443')).toBe('2001:db8:1:2::/64');
      expect(addressKey('[2001:db8:1:2::1]')).toBe('2001:db8:1:2::/64');
    });
    it('counts a caller that names no address as one shared unknown address', () => {
      expect(addressKey('')).toBe('unknown');
      expect(addressKey('  ')).toBe('unknown');
      expect(addressKey('unix-socket')).toBe('unix-socket');
    });
  });

  it('when one address fails five times on one email, then its sixth attempt is refused until the window ends, with Retry-After', async () => {
    for (let i = 0; i < SIGN_IN_POLICY.addressAndAccount.failures; i++) await fail('victim@example.com', '203.0.113.7');
    advance(60_000);
    const refused = await refusalOf(throttle.admit('victim@example.com', '203.0.113.7'));
    expect(refused).toEqual({
      status: RESOURCE_EXHAUSTED,
      code: 'too_many_attempts',
      message: 'Too many failed sign-ins for this email from your address; try again in 840 s.',
      retryAfterSeconds: 840,
    });
    advance(840_000);
    await expect(throttle.admit('victim@example.com', '203.0.113.7')).resolves.toBeDefined();
  });

  it('when one address fails on many emails, then its 101st failure within the hour is refused on any email', async () => {
    for (let i = 0; i < SIGN_IN_POLICY.address.failures; i++) await fail(`user${i}@example.com`, '203.0.113.7');
    const refused = await refusalOf(throttle.admit('someone-else@example.com', '203.0.113.7'));
    expect(refused).toMatchObject({
      code: 'too_many_attempts',
      retryAfterSeconds: 3600,
      message: expect.stringMatching(/from your address; try again in 3600 s/),
    });
    // The same /64 is the same address; another address is not affected.
    await expect(throttle.admit('someone-else@example.com', '198.51.100.1')).resolves.toBeDefined();
    advance(3600_000);
    await expect(throttle.admit('someone-else@example.com', '203.0.113.7')).resolves.toBeDefined();
  });

  it('when an IPv6 client steps through addresses of its /64, then they count as one address', async () => {
    for (let i = 1; i <= 5; i++) await fail('victim@example.com', `2001:db8:5:6::${i.toString(16)}`);
    expect((await refusalOf(throttle.admit('victim@example.com', '2001:db8:5:6::ffff'))).code).toBe('too_many_attempts');
    await expect(throttle.admit('victim@example.com', '2001:db8:5:7::1')).resolves.toBeDefined();
  });

  it('when many addresses fail on one email, then attempts on it are only slowed down, by at most 2 s, and never refused', async () => {
    for (let i = 0; i < 300; i++) await fail('victim@example.com', `198.18.${i >> 8}.${i & 255}`);
    expect(waits.slice(0, 9)).toEqual([250, 500, 1000, 2000, 2000, 2000, 2000, 2000, 2000]);
    expect(waits).toHaveLength(300 - SIGN_IN_POLICY.account.freeFailures);
    expect(Math.max(...waits)).toBe(SIGN_IN_POLICY.account.maxDelayMs);
    const owner = await throttle.admit('victim@example.com', '192.0.2.10');
    expect(owner.delayedMs).toBe(2000);
    await owner.succeeded();
  });

  it('when the owner signs in, then only their own address starts again: the failing address stays refused', async () => {
    for (let i = 0; i < 5; i++) await fail('victim@example.com', '203.0.113.7');
    const owner = await throttle.admit('victim@example.com', '192.0.2.10');
    expect(owner.delayedMs).toBe(250);
    await owner.succeeded();
    expect((await refusalOf(throttle.admit('victim@example.com', '203.0.113.7'))).code).toBe('too_many_attempts');
  });

  it('when an address signs in after four failures, then its count for that email starts again; its address-wide count does not', async () => {
    for (let i = 0; i < 4; i++) await fail('ada@example.com', '203.0.113.9');
    await (await throttle.admit('ada@example.com', '203.0.113.9')).succeeded();
    for (let i = 0; i < 5; i++) await fail('ada@example.com', '203.0.113.9');
    expect((await refusalOf(throttle.admit('ada@example.com', '203.0.113.9'))).code).toBe('too_many_attempts');
    // 9 failures were counted against the address in all; the refused attempt is not one.
    for (let i = 0; i < SIGN_IN_POLICY.address.failures - 9; i++) await fail(`other${i}@example.com`, '203.0.113.9');
    expect((await refusalOf(throttle.admit('new@example.com', '203.0.113.9'))).message).toMatch(/from your address;/);
  });

  it('when many attempts arrive at once, then exactly five of one address on one email get through (each count is one atomic increment)', async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => fail('victim@example.com', '203.0.113.7')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as AppError).code).toBe('too_many_attempts');
  });

  it('when an attempt is abandoned (server busy, database down), then nothing of it is counted', async () => {
    for (let i = 0; i < 20; i++) await (await throttle.admit('victim@example.com', '203.0.113.7')).abandoned();
    for (let i = 0; i < 5; i++) await fail('victim@example.com', '203.0.113.7');
    expect(waits).toEqual([]);
    expect((await refusalOf(throttle.admit('victim@example.com', '203.0.113.7'))).code).toBe('too_many_attempts');
  });

  it('when the counters cannot be reached, then 503 throttle_unavailable and no password is checked', async () => {
    const broken = new RateLimiterMemory({ points: 5, duration: 60 });
    jest.spyOn(broken, 'consume').mockRejectedValue(new Error('connection lost'));
    const limiters = signInLimiters();
    for (const which of ['address', 'addressAndAccount', 'account'] as const) {
      const down = new SignInThrottle({ ...limiters, [which]: broken }, async () => undefined);
      expect(await refusalOf(down.admit('ada@example.com', '203.0.113.7'))).toMatchObject({ status: UNAVAILABLE, code: 'throttle_unavailable' });
    }
  });
});
