import { namesOneOf } from '../../src/domain/forget-apps';

describe('namesOneOf: whether a record names one of the apps being forgotten', () => {
  const a = 'app_Xq3V0d5yH2kq8Jr1mT9bWg';
  const b = 'app_Zz9yX8wV7uT6sR5qP4oN3m';
  const names = namesOneOf(new Set([a, b]));

  it('when a JSON value or a key holds one of the App IDs, then it matches, wherever it is', () => {
    expect(names(JSON.stringify({ clientId: a, grantId: 'g' }))).toBe(true);
    expect(names(`oauth2:x:${b}`)).toBe(true);
    expect(names(`${a}`)).toBe(true);
    expect(names(`app_app_${b}:rest`)).toBe(true);
  });

  it('when a text holds another App ID, a part of one, or none, then it does not match', () => {
    expect(names(JSON.stringify({ clientId: 'app_Aa1Bb2Cc3Dd4Ee5Ff6Gg7H' }))).toBe(false);
    expect(names(a.slice(0, 25))).toBe(false);
    expect(names('1700000000')).toBe(false);
    expect(names('')).toBe(false);
  });
});
