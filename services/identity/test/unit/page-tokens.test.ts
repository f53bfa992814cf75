import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { AppError } from '@sandbox/runtime';
import { PAGE_TOKEN_KEY_INFO, PageTokens } from '../../src/domain/page-tokens';

const APP = '0123456789abcdef01234567';
const CURSOR = { time: new Date('2030-01-01T00:00:00.123Z'), id: 'abcdefabcdefabcdefabcdef' };

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('request-log page tokens', () => {
  const key = randomBytes(32);
  const tokens = new PageTokens(key);

  it('when a token is issued, then it opens to the same position for the same app, and shows nothing readable', () => {
    const token = tokens.seal(APP, CURSOR);
    expect(token).toMatch(/^[A-Za-z0-9_-]{68}$/);
    expect(tokens.open(APP, token)).toEqual(CURSOR);
    expect(token).not.toContain(CURSOR.id);
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toMatch(/"t"|"i"/);
  });

  it('when every single bit of a token is flipped in turn, then each altered token is refused', () => {
    const bytes = Buffer.from(tokens.seal(APP, CURSOR), 'base64url');
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const altered = Buffer.from(bytes);
      altered[bit >> 3] ^= 1 << (bit & 7);
      expect(refusal(() => tokens.open(APP, altered.toString('base64url'))).code).toBe('invalid_page_token');
    }
  });

  it.each([
    ['the old unsigned JSON form', Buffer.from(JSON.stringify({ t: 1, i: 'f'.repeat(24) })).toString('base64url')],
    ['an empty-looking value', 'A'.repeat(68)],
    ['a value one character short', 'A'.repeat(67)],
    ['a value with padding', `${'A'.repeat(66)}==`],
    ['a query-injection attempt', '{"$gt":""}'],
  ])('refuses %s', (_label, token) => {
    expect(refusal(() => tokens.open(APP, token))).toEqual({
      code: 'invalid_page_token',
      message: expect.stringMatching(/^pageToken .*send nextPageToken back unchanged, or start again without one\.$/),
    });
  });

  it("when a token is sent with another app's id, or was signed with another key, then it is refused", () => {
    const token = tokens.seal(APP, CURSOR);
    expect(refusal(() => tokens.open('fedcba9876543210fedcba98', token)).message).toMatch(/issued for another app/);
    expect(refusal(() => new PageTokens(randomBytes(32)).open(APP, token)).code).toBe('invalid_page_token');
  });

  it('when someone knows the session signing key but not the derivation, then a token signed directly with it is refused', () => {
    // The MAC key is HKDF(session key, info); a MAC made with the session key itself must not pass.
    const genuine = Buffer.from(tokens.seal(APP, CURSOR), 'base64url');
    const payload = genuine.subarray(0, 19);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(APP.length);
    const withRawKey = createHmac('sha256', key).update(length).update(APP).update(payload).digest();
    expect(refusal(() => tokens.open(APP, Buffer.concat([payload, withRawKey]).toString('base64url'))).code).toBe('invalid_page_token');
    const derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), PAGE_TOKEN_KEY_INFO, 32));
    const withDerived = createHmac('sha256', derived).update(length).update(APP).update(payload).digest();
    expect(Buffer.concat([payload, withDerived]).toString('base64url')).toBe(genuine.toString('base64url'));
  });
});
