import { AppError } from '@sandbox/runtime';
import { PACK_SCOPES } from '../../src/domain/limits';
import { appDescription, appName, appResourceId, checkPassword, normalizeEmail, redirectUriList, scopeList } from '../../src/domain/validation';

function refusal(run: () => unknown): { status: number; code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}
const INVALID_ARGUMENT = 3;

describe('validation', () => {
  describe('email', () => {
    it('normalizes case and surrounding space', () => {
      expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    });
    it.each(['', 'ada', 'ada@', '@example.com', 'ada@example', 'a da@example.com', 'ada@exa mple.com'])('refuses %j', (email) => {
      expect(refusal(() => normalizeEmail(email))).toMatchObject({ status: INVALID_ARGUMENT, code: 'invalid_email' });
    });
    it('refuses more than 254 characters, naming the limit', () => {
      const email = `${'a'.repeat(60)}@${'b'.repeat(200)}.com`;
      expect(refusal(() => normalizeEmail(email)).message).toMatch(/email must be at most 254/);
    });
  });

  describe('password', () => {
    it('accepts 8 to 200 characters', () => {
      expect(checkPassword('12345678')).toBe('12345678');
      expect(checkPassword('x'.repeat(200))).toHaveLength(200);
    });
    it('refuses 7 and 201 characters with codes naming the problem', () => {
      expect(refusal(() => checkPassword('1234567')).code).toBe('password_too_short');
      expect(refusal(() => checkPassword('x'.repeat(201))).code).toBe('password_too_long');
    });
  });

  describe('app name and description', () => {
    it('trims the name and refuses an empty or blank one', () => {
      expect(appName('  My app ')).toBe('My app');
      expect(refusal(() => appName('')).code).toBe('name_required');
      expect(refusal(() => appName('   ')).message).toMatch(/^name is required/);
    });
    it('accepts 100 characters and refuses 101', () => {
      expect(appName('n'.repeat(100))).toHaveLength(100);
      expect(refusal(() => appName('n'.repeat(101))).code).toBe('name_too_long');
    });
    it('refuses control characters in the name but allows line breaks in the description', () => {
      expect(refusal(() => appName('a\u0000b')).code).toBe('invalid_name');
      expect(appDescription('line one\nline two')).toBe('line one\nline two');
      expect(refusal(() => appDescription('bad\u0007bell')).code).toBe('invalid_description');
    });
    it('accepts a description of 1000 characters and refuses 1001', () => {
      expect(appDescription('d'.repeat(1000))).toHaveLength(1000);
      expect(refusal(() => appDescription('d'.repeat(1001))).code).toBe('description_too_long');
    });
  });

  describe('scopes', () => {
    it('keeps known scopes once, in the canonical order', () => {
      expect(scopeList(['hr:read', 'fpa:read', 'hr:read'])).toEqual(['fpa:read', 'hr:read']);
      expect(scopeList([...PACK_SCOPES].reverse())).toEqual([...PACK_SCOPES]);
      expect(scopeList([])).toEqual([]);
    });
    it('refuses an unknown scope, naming it', () => {
      const r = refusal(() => scopeList(['fpa:read', 'fpa:write']));
      expect(r.code).toBe('unknown_scope');
      expect(r.message).toContain('"fpa:write"');
    });
  });

  describe('redirect URIs', () => {
    it('accepts up to ten absolute URIs and collapses duplicates', () => {
      const uris = Array.from({ length: 10 }, (_, i) => `https://example.com/cb/${i}`);
      expect(redirectUriList(uris)).toEqual(uris);
      expect(redirectUriList(['http://localhost:8080/cb', 'http://localhost:8080/cb', 'com.example.app:/oauth'])).toEqual([
        'http://localhost:8080/cb',
        'com.example.app:/oauth',
      ]);
    });
    it('refuses eleven', () => {
      const uris = Array.from({ length: 11 }, (_, i) => `https://example.com/cb/${i}`);
      expect(refusal(() => redirectUriList(uris)).code).toBe('too_many_redirect_uris');
    });
    it.each([
      ['a fragment', 'https://example.com/cb#x'],
      ['a relative path', '/callback'],
      ['no scheme', 'example.com/callback'],
      ['javascript', 'javascript:alert(1)'],
      ['data', 'data:text/html,hi'],
      ['spaces', 'https://example.com/a b'],
      ['an over-long URI', `https://example.com/${'x'.repeat(2048)}`],
    ])('refuses %s, naming the item', (_label, uri) => {
      const r = refusal(() => redirectUriList(['https://ok.example/cb', uri]));
      expect(r.code).toBe('invalid_redirect_uri');
      expect(r.message).toContain('redirectUris[1]');
    });
  });

  describe('app ids', () => {
    it('accepts 24 lowercase hex characters and refuses anything else', () => {
      expect(appResourceId('0123456789abcdef01234567')).toBe('0123456789abcdef01234567');
      for (const bad of ['', '123', '0123456789ABCDEF01234567', '0123456789abcdef0123456g', '{"$ne":null}']) {
        expect(refusal(() => appResourceId(bad)).code).toBe('invalid_app_id');
      }
    });
  });
});
