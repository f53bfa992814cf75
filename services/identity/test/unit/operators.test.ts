import { isOperator, type OperatorRule } from '../../src/domain/operators';
import { isDay } from '../../src/domain/usage';
import { parseBefore } from '../../src/domain/admin';

const rule: OperatorRule = { emails: new Set(['ops@example.org']), groups: new Set(['sandbox-operators']), groupsClaim: 'roles' };

describe('who is an operator', () => {
  it('a local account counts by its email only', () => {
    expect(isOperator(rule, 'ops@example.org')).toBe(true);
    expect(isOperator(rule, 'ada@example.org')).toBe(false);
    expect(isOperator(rule, '')).toBe(false);
  });

  it("an identity provider's user counts by a verified email, or by a group in the configured claim (a list or one string)", () => {
    expect(isOperator(rule, 'ops@example.org', { email_verified: true })).toBe(true);
    expect(isOperator(rule, 'ops@example.org', {})).toBe(false);
    expect(isOperator(rule, 'ops@example.org', { email_verified: 'true' })).toBe(false);
    expect(isOperator(rule, 'x@example.org', { roles: ['staff', 'sandbox-operators'] })).toBe(true);
    expect(isOperator(rule, 'x@example.org', { roles: 'sandbox-operators' })).toBe(true);
    expect(isOperator(rule, 'x@example.org', { groups: ['sandbox-operators'] })).toBe(false);
    expect(isOperator(rule, 'x@example.org', { roles: [{ name: 'sandbox-operators' }] })).toBe(false);
  });
});

describe('days and moments an operator gives', () => {
  it('a day is YYYY-MM-DD and a real date', () => {
    expect(['2030-01-31', '2028-02-29'].map(isDay)).toEqual([true, true]);
    expect(['2030-02-30', '2030-13-01', '2030-1-1', '30-01-01', ''].map(isDay)).toEqual([false, false, false, false, false]);
  });

  it('before is a day (its start, UTC) or an RFC 3339 date-time; anything else is refused naming both forms', () => {
    expect(parseBefore('2030-01-31').toISOString()).toBe('2030-01-31T00:00:00.000Z');
    expect(parseBefore('2030-01-31T17:00:00+01:00').toISOString()).toBe('2030-01-31T16:00:00.000Z');
    for (const bad of ['yesterday', '1700000000', '2030-02-30', '']) {
      expect(() => parseBefore(bad)).toThrow(expect.objectContaining({ code: 'invalid_before', message: expect.stringMatching(/2030-01-31T17:00:00Z/) }));
    }
  });
});
