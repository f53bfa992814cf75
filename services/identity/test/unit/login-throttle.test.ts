import { lockedForMs, THROTTLE, throttleKey } from '../../src/domain/login-throttle';

const at = (ms: number) => new Date(1_700_000_000_000 + ms);

describe('login throttle', () => {
  it('when fewer than five failures are counted, then there is no wait', () => {
    expect(lockedForMs(undefined, at(0))).toBe(0);
    expect(lockedForMs({ failures: 4, lastFailureAt: at(0) }, at(0))).toBe(0);
  });

  it('when five or more failures are counted, then the wait doubles from one second', () => {
    expect(lockedForMs({ failures: 5, lastFailureAt: at(0) }, at(0))).toBe(1000);
    expect(lockedForMs({ failures: 6, lastFailureAt: at(0) }, at(0))).toBe(2000);
    expect(lockedForMs({ failures: 8, lastFailureAt: at(0) }, at(500))).toBe(7500);
  });

  it('when the wait has passed, then the next attempt is allowed', () => {
    expect(lockedForMs({ failures: 5, lastFailureAt: at(0) }, at(1000))).toBe(0);
  });

  it('the wait never exceeds fifteen minutes, and a stale count is forgotten', () => {
    expect(lockedForMs({ failures: 40, lastFailureAt: at(0) }, at(0))).toBe(THROTTLE.maxDelayMs);
    expect(lockedForMs({ failures: 40, lastFailureAt: at(0) }, at(THROTTLE.windowMs + 1))).toBe(0);
  });

  it('the key depends on the email only, and does not contain it', () => {
    expect(throttleKey('a@example.com')).toBe(throttleKey('a@example.com'));
    expect(throttleKey('a@example.com')).not.toBe(throttleKey('b@example.com'));
    expect(throttleKey('a@example.com')).not.toContain('example');
  });
});
