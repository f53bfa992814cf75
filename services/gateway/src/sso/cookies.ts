import type { IncomingHttpHeaders } from 'node:http';

/*
 * The only cookies the gateway ever sets are single sign-on's two short-lived
 * ones (docs/state.md); every other credential travels in headers. Their
 * values are sealed JWEs (base64url and dots), so no quoting or escaping is
 * ever needed, and a value that is anything else is not ours.
 */

const COOKIE_VALUE = /^[A-Za-z0-9._-]+$/;

/** The value of one cookie of the request, if it is there once and well-formed (several of the same name: none trusted). */
export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const found: string[] = [];
  for (const pair of (headers.cookie ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    found.push(pair.slice(eq + 1).trim());
  }
  return found.length === 1 && COOKIE_VALUE.test(found[0]!) ? found[0] : undefined;
}

export interface CookieOptions {
  /** The browser's path, any proxy prefix included. */
  path: string;
  maxAgeSeconds: number;
  sameSite: 'Lax' | 'Strict';
  /** Sent only over https: set whenever the public URL is https. */
  secure: boolean;
}

/** A Set-Cookie value: always HttpOnly, so no script (the page's included) can read it. */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    `SameSite=${options.sameSite}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

/** A Set-Cookie that removes the cookie (same name and path; Max-Age=0). */
export function clearCookie(name: string, options: Omit<CookieOptions, 'maxAgeSeconds'>): string {
  return setCookie(name, '', { ...options, maxAgeSeconds: 0 });
}
