import { randomBytes } from 'node:crypto';
import { clearCookie, readCookie, setCookie } from '../../src/sso/cookies';
import { CookieSealer } from '../../src/sso/sealed-cookie';
import { SSO_ERROR_CODES } from '../../src/sso/sso-errors';
import { SSO_ERROR_WORDS } from '../../portal/src/sso';

/*
 * The sealed cookies of single sign-on (sso/sealed-cookie.ts, cookies.ts):
 * what the browser holds can be neither read nor changed, lapses on time by
 * the gateway's clock, and is only ever accepted for its own purpose.
 */
describe('the cookie sealer', () => {
  const key = new Uint8Array(randomBytes(32));
  let now = Date.UTC(2030, 0, 1);
  const sealer = new CookieSealer(key, () => now);

  it('when a value is sealed and opened within its time, then it comes back as it was, and cannot be read on the way', async () => {
    const sealed = await sealer.seal('flow', { v: 'verifier-value', s: 'state-value' }, 600);
    expect(sealed.split('.')).toHaveLength(5);
    expect(Buffer.from(sealed.split('.')[3]!, 'base64url').toString('latin1')).not.toContain('verifier-value');
    expect(await sealer.open('flow', sealed)).toEqual({ ok: true, value: expect.objectContaining({ v: 'verifier-value', s: 'state-value', aud: 'flow' }) });
  });

  it('when its time has passed by the injected clock, then it is expired (and just before, it is not)', async () => {
    const sealed = await sealer.seal('flow', { v: 'x' }, 600);
    now += 600_000;
    expect((await sealer.open('flow', sealed)).ok).toBe(true);
    now += 2_000;
    expect(await sealer.open('flow', sealed)).toEqual({ ok: false, reason: 'expired' });
  });

  it('when any part of it is changed, then it is invalid', async () => {
    const sealed = await sealer.seal('flow', { v: 'x' }, 600);
    const parts = sealed.split('.');
    for (const index of [0, 2, 3, 4]) {
      const changed = [...parts];
      const part = changed[index]!;
      changed[index] = `${part.slice(0, -2)}${part.at(-2) === 'A' ? 'B' : 'A'}${part.at(-1)}`;
      expect({ index, opened: await sealer.open('flow', changed.join('.')) }).toEqual({ index, opened: { ok: false, reason: 'invalid' } });
    }
  });

  it('when it is sealed under another key, or for another purpose, then it is invalid', async () => {
    const other = new CookieSealer(new Uint8Array(randomBytes(32)), () => now);
    expect(await sealer.open('flow', await other.seal('flow', { v: 'x' }, 600))).toEqual({ ok: false, reason: 'invalid' });
    expect(await sealer.open('handoff', await sealer.seal('flow', { v: 'x' }, 600))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('when it is not a sealed value at all, then it is invalid', async () => {
    for (const junk of ['', 'abc', 'a.b.c.d.e', 'eyJhbGciOiJub25lIn0.eyJ2IjoieCJ9.'])
      expect(await sealer.open('flow', junk)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('when the key is not 32 bytes, then the sealer is not built', () => {
    expect(() => new CookieSealer(new Uint8Array(16))).toThrow(/32 bytes/);
  });
});

describe('the cookie headers', () => {
  it('when a cookie is set, then it is HttpOnly with its path, lifetime and SameSite, and Secure only when asked', () => {
    expect(setCookie('n', 'v.1', { path: '/sandbox/api/auth/sso/callback', maxAgeSeconds: 600, sameSite: 'Lax', secure: true })).toBe(
      'n=v.1; Path=/sandbox/api/auth/sso/callback; Max-Age=600; HttpOnly; SameSite=Lax; Secure',
    );
    expect(clearCookie('n', { path: '/p', sameSite: 'Strict', secure: false })).toBe('n=; Path=/p; Max-Age=0; HttpOnly; SameSite=Strict');
  });

  it('when a request carries the cookie once, then it is read; twice, or malformed, then not at all', () => {
    expect(readCookie({ cookie: 'a=1; n=abc.def_-; b=2' }, 'n')).toBe('abc.def_-');
    expect(readCookie({ cookie: 'n=abc; n=def' }, 'n')).toBeUndefined();
    expect(readCookie({ cookie: 'n="quoted"' }, 'n')).toBeUndefined();
    expect(readCookie({ cookie: 'xn=abc' }, 'n')).toBeUndefined();
    expect(readCookie({}, 'n')).toBeUndefined();
  });
});

describe("the sign-in screen's words for single sign-on's errors", () => {
  it('when the gateway can send a code, then the page has words for it, and for nothing else', () => {
    expect(Object.keys(SSO_ERROR_WORDS).sort()).toEqual([...SSO_ERROR_CODES].sort());
  });
});
