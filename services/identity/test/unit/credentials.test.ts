import { hintOf, newAppId, newResourceId, newSecret, PATTERN, PREFIX, SECRET_KINDS } from '../../src/domain/credentials';

describe('credential formats', () => {
  it('when a secret of each kind is made, then it has its prefix, 43 url-safe characters and matches its pattern', () => {
    for (const kind of SECRET_KINDS) {
      const value = newSecret(kind);
      expect(value.startsWith(PREFIX[kind])).toBe(true);
      expect(value.slice(PREFIX[kind].length)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(PATTERN[kind].test(value)).toBe(true);
    }
    expect(newSecret('bearerToken').startsWith('bt_')).toBe(true);
  });

  it('when an App ID is made, then it starts app_ and carries 128 random bits', () => {
    const appId = newAppId();
    expect(appId).toMatch(/^app_[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(appId.slice(4), 'base64url')).toHaveLength(16);
  });

  it('when many values are made, then none repeats', () => {
    const values = new Set(Array.from({ length: 2000 }, () => newSecret('apiKey')));
    expect(values.size).toBe(2000);
    const ids = new Set(Array.from({ length: 2000 }, () => newResourceId()));
    expect(ids.size).toBe(2000);
  });

  it('when a secret is decoded, then it carries 256 random bits', () => {
    expect(Buffer.from(newSecret('appSecret').slice(3), 'base64url')).toHaveLength(32);
  });

  it('when a value of one kind is checked against another pattern, then it does not match', () => {
    expect(PATTERN.apiKey.test(newSecret('bearerToken'))).toBe(false);
    expect(PATTERN.bearerToken.test(newSecret('apiKey'))).toBe(false);
    expect(PATTERN.resourceId.test(newResourceId())).toBe(true);
    expect(PATTERN.resourceId.test('ABCDEF0123456789abcdef01')).toBe(false);
  });

  it('the hint is the last four characters', () => {
    expect(hintOf('ak_abcdefWXYZ')).toBe('WXYZ');
  });
});
