import { AppError, quoteInput } from '@sandbox/runtime';
import { PACK_SCOPES } from '../../src/domain/limits';
import { appDescription, appName, checkPassword, displayEmail, isAppResourceId, normalizeEmail, redirectUriList, scopeList } from '../../src/domain/validation';

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
    const rule = (email: string) => refusal(() => normalizeEmail(email));

    it('when an address is accepted, then it is trimmed, NFC-normalised and lower-cased (domain and local part)', () => {
      expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
      expect(normalizeEmail('Jose\u0301@B\u00dcCHER.example')).toBe('jos\u00e9@b\u00fccher.example');
      expect(normalizeEmail('a.b+tag@example.com')).toBe('a.b+tag@example.com');
    });

    it('when normalised twice, then nothing changes (the canonical form is a fixed point)', () => {
      for (const email of ['Ada@Example.com', 'Jose\u0301@example.com', '\u0130stanbul@example.com', '\u212Aelvin@example.com', '\u1E9Eoo@example.de']) {
        const once = normalizeEmail(email);
        expect(normalizeEmail(once)).toBe(once);
        expect(once.normalize('NFC')).toBe(once);
      }
    });

    it.each([
      ['NUL', 'ada\u0000@example.com', /control characters.*U\+0000/],
      ['BEL', 'ada\u0007@example.com', /control characters.*U\+0007/],
      ['ESC', '\u001b[31mada@example.com', /control characters.*U\+001B/],
      ['DEL', 'ada\u007f@example.com', /control characters.*U\+007F/],
      ['a C1 control (NEL)', 'ada\u0085@example.com', /control characters.*U\+0085/],
      ['a trailing line break', 'ada@example.com\n', /control characters.*U\+000A/],
      ['a right-to-left override', 'ada\u202e@example.com', /format characters.*U\+202E/],
      ['a zero-width joiner', 'a\u200dda@example.com', /format characters.*U\+200D/],
      ['a zero-width space', 'ada@exa\u200bmple.com', /format characters.*U\+200B/],
      ['a leading byte-order mark', '\ufeffada@example.com', /format characters.*U\+FEFF/],
      ['the replacement character', 'ada\ufffd@example.com', /U\+FFFD/],
      ['an unpaired surrogate', 'ada\ud800@example.com', /unpaired surrogates/],
    ])('when it holds %s, then invalid_email naming the rule', (_label, email, message) => {
      const r = rule(email);
      expect(r).toMatchObject({ status: INVALID_ARGUMENT, code: 'invalid_email' });
      expect(r.message).toMatch(/^email must not contain /);
      expect(r.message).toMatch(message);
    });

    it.each([
      ['', /email is required/],
      ['   ', /email is required/],
      ['a da@example.com', /must not contain spaces/],
      ['ada@exa mple.com', /must not contain spaces/],
      ['a\u2028da@example.com', /must not contain spaces/],
      ['ada\u3000@example.com', /must not contain spaces/],
      ['"ada"@example.com', /quoted local part/],
      ['ada', /such as name@example.com/],
      ['ada@', /such as name@example.com/],
      ['@example.com', /such as name@example.com/],
      ['ada@example', /such as name@example.com/],
      ['ada@example.com.', /such as name@example.com/],
      ['a..da@example.com', /such as name@example.com/],
      ['ada@[127.0.0.1]', /such as name@example.com/],
      ['Ada <ada@example.com>', /spaces/],
      ['ada@exa_mple.com', /such as name@example.com/],
    ])('refuses %j: %s', (email, message) => {
      const r = rule(email);
      expect(r).toMatchObject({ status: INVALID_ARGUMENT, code: 'invalid_email' });
      expect(r.message).toMatch(message);
    });

    it('refuses more than 254 characters, and more than 64 bytes before the @, naming the limit', () => {
      expect(rule(`${'a'.repeat(60)}@${'b'.repeat(200)}.com`).message).toMatch(/email must be at most 254/);
      expect(rule(`${'a'.repeat(65)}@example.com`).message).toMatch(/at most 64 bytes before the @/);
      expect(rule(`${'\u00e9'.repeat(33)}@example.com`).message).toMatch(/at most 64 bytes before the @/);
      expect(normalizeEmail(`${'a'.repeat(64)}@example.com`)).toHaveLength(76);
    });

    it("shows a trusted issuer's email claim only in its canonical form, and not at all when it breaks a rule", () => {
      expect(displayEmail(' Grace@Corp.Example ')).toBe('grace@corp.example');
      expect(displayEmail('grace\u202e@corp.example')).toBe('');
      expect(displayEmail(42)).toBe('');
      expect(displayEmail(undefined)).toBe('');
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
    it('stores names and descriptions in NFC', () => {
      expect(appName('Cafe\u0301')).toBe('Caf\u00e9');
      expect(appDescription('cre\u0300me')).toBe('cr\u00e8me');
    });
    it.each([
      ['NUL', 'a\u0000b', /control characters/],
      ['a line break', 'a\nb', /control characters.*U\+000A/],
      ['ESC', 'a\u001bb', /control characters/],
      ['a C1 control', 'a\u009bb', /control characters.*U\+009B/],
      ['a right-to-left override', 'evil\u202egnp.exe', /format characters.*U\+202E/],
      ['a zero-width joiner', 'a\u200db', /format characters.*U\+200D/],
      ['a byte-order mark at the start (which trimming would hide)', '\ufeffApp', /format characters.*U\+FEFF/],
      ['the replacement character', 'a\ufffdb', /U\+FFFD/],
    ])('refuses %s in a name (invalid_name) and in a description (invalid_description)', (_label, text, message) => {
      expect(refusal(() => appName(text))).toMatchObject({ code: 'invalid_name', message: expect.stringMatching(message) });
      if (text !== 'a\nb') expect(refusal(() => appDescription(text))).toMatchObject({ code: 'invalid_description', message: expect.stringMatching(message) });
    });
    it('allows line breaks and tabs in the description only', () => {
      expect(appDescription('line one\r\nline two\tend')).toBe('line one\r\nline two\tend');
      expect(refusal(() => appDescription('bad\u0007bell')).message).toMatch(/line breaks and tabs are allowed/);
    });
    it('accepts a description of 1000 characters and refuses 1001', () => {
      expect(appDescription('d'.repeat(1000))).toHaveLength(1000);
      expect(refusal(() => appDescription('d'.repeat(1001))).code).toBe('description_too_long');
    });
    it('accepts emoji and other scripts, which are neither control nor format characters', () => {
      expect(appName('Wetter 🌦 дашборд')).toBe('Wetter 🌦 дашборд');
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
    it('accepts https, loopback http and reverse-domain private-use schemes, stored exactly as given; duplicates collapse', () => {
      const uris = [
        'https://client.example/cb',
        'https://client.example:8443/cb?x=1',
        'https://xn--bcher-kva.example/cb',
        'http://127.0.0.1:8080/callback',
        'http://127.1.2.3/cb',
        'http://[::1]:3000/cb',
        'http://localhost:5173/cb',
        'com.example.app:/oauth2redirect',
        'com.example.app://callback/path',
      ];
      expect(redirectUriList([...uris, uris[0]])).toEqual(uris);
      const unusual = ['HTTPS://Client.Example/CB', 'http://LOCALHOST/cb', 'http://0x7f.0.0.1/cb', 'http://[0:0:0:0:0:0:0:1]/cb'];
      expect(redirectUriList(unusual)).toEqual(unusual);
    });
    it('accepts ten and refuses eleven', () => {
      const uris = Array.from({ length: 11 }, (_, i) => `https://example.com/cb/${i}`);
      expect(redirectUriList(uris.slice(0, 10))).toHaveLength(10);
      expect(refusal(() => redirectUriList(uris))).toMatchObject({ code: 'too_many_redirect_uris', message: expect.stringMatching(/at most 10/) });
    });
    it('accepts 2,000 characters and refuses 2,001', () => {
      const base = 'https://example.com/';
      expect(redirectUriList([base + 'x'.repeat(2000 - base.length)])).toHaveLength(1);
      expect(refusal(() => redirectUriList([base + 'x'.repeat(2001 - base.length)])).message).toMatch(/longer than 2000 characters/);
    });
    it.each([
      ['javascript:', 'javascript:alert(1)', /javascript: scheme runs script/],
      ['javascript: in capitals', 'JavaScript:alert(1)', /javascript: scheme runs script/],
      ['javascript: hidden by a tab', 'java\tscript:alert(1)', /control characters/],
      ['javascript: hidden by a line break', 'java\nscript:alert(1)', /control characters/],
      ['javascript: behind a leading space', ' javascript:alert(1)', /white space/],
      ['data:', 'data:text/html,<script>alert(1)</script>', /data: scheme/],
      ['view-source:', 'view-source:https://client.example/', /view-source: scheme/],
      ['jar:', 'jar:https://client.example/a.jar!/', /jar: scheme/],
      ['file:', 'file:///etc/passwd', /file: scheme/],
      ['blob:', 'blob:https://client.example/123', /blob: scheme/],
      ['ftp:', 'ftp://client.example/cb', /ftp: scheme/],
      ['ws:', 'ws://client.example/cb', /WebSocket/],
      ['wss:', 'wss://client.example/cb', /WebSocket/],
      ['vbscript:', 'vbscript:msgbox(1)', /vbscript: scheme/],
      ['another scheme without a dot', 'myapp:/callback', /scheme "myapp:" is not allowed/],
      ['mailto:', 'mailto:ada@example.com', /scheme "mailto:" is not allowed/],
      ['http to a public host', 'http://client.example/cb', /http is allowed only for a loopback host/],
      ['http to a host that starts like loopback', 'http://127.0.0.1.nip.io/cb', /only for a loopback host/],
      ['http to localhost as a subdomain', 'http://localhost.evil.example/cb', /only for a loopback host/],
      ['http to an IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/cb', /only for a loopback host/],
      ['http to localhost with a trailing dot', 'http://localhost./cb', /only for a loopback host/],
      ['https without //', 'https:evil.com', /with "\/\/" after the scheme/],
      ['https with one slash', 'https:/evil.com/cb', /with "\/\/" after the scheme/],
      ['https with an empty authority', 'https:///evil.com/cb', /names no host/],
      ['a backslash before @', 'https://evil.com\\@good.com/', /backslash/],
      ['a backslash as a slash', 'https:\\\\evil.com/cb', /backslash/],
      ['userinfo', 'https://user:pass@client.example/cb', /user information/],
      ['a user name only', 'https://good.example@evil.example/cb', /user information/],
      ['an empty userinfo', 'https://@client.example/cb', /user information/],
      ['userinfo in a private-use URI', 'com.example.app://user@host/cb', /user information/],
      ['a fragment', 'https://client.example/cb#x', /fragment/],
      ['an empty fragment', 'https://client.example/cb#', /fragment/],
      ['a relative path', '/callback', /not an absolute URI/],
      ['no scheme', 'client.example/callback', /not an absolute URI/],
      ['spaces', 'https://client.example/a b', /white space/],
      ['a right-to-left override', 'https://client.example/\u202ecb', /format characters/],
      ['an empty string', '', /empty/],
      ['a port out of range', 'https://client.example:99999/cb', /not a valid URL/],
    ])('refuses %s, naming the item and the rule', (_label, uri, message) => {
      const r = refusal(() => redirectUriList(['https://ok.example/cb', uri]));
      expect(r.code).toBe('invalid_redirect_uri');
      expect(r.message).toContain(`redirectUris[1] ${quoteInput(uri)} is refused: `);
      expect(r.message).toMatch(message);
    });
    it('when a refused URI holds a right-to-left override, then the message shows it escaped, not applied', () => {
      const r = refusal(() => redirectUriList(['https://client.example/\u202ecb']));
      expect(r.message).toContain('redirectUris[0] "https://client.example/\\u202ecb" is refused: ');
      expect(r.message).not.toContain('\u202e');
    });
    it('quotes a long refused URI only in part', () => {
      const r = refusal(() => redirectUriList([`javascript:${'x'.repeat(3000)}`]));
      expect(r.message.length).toBeLessThan(300);
    });
  });

  describe('app ids', () => {
    it('recognises 24 lowercase hex characters as the form of an app id, and nothing else', () => {
      expect(isAppResourceId('0123456789abcdef01234567')).toBe(true);
      for (const bad of ['', '123', '0123456789ABCDEF01234567', '0123456789abcdef0123456g', '{"$ne":null}', '0123456789abcdef01234567\n']) {
        expect(isAppResourceId(bad)).toBe(false);
      }
    });
  });
});
