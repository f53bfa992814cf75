import { percentEncode } from './encoding';

export interface NameValue {
  name: string;
  value: string;
}

/** Characters a URI path may hold as they are (RFC 3986 pchar and "/"); "%" is kept when it starts an escape. */
const PATH_AS_IS = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/**
 * RFC 5849 3.4.1.2: scheme and host in lowercase, the port only when it is
 * not the scheme's default, the path as the client sent it (its escapes kept,
 * "/" when empty), no query, no fragment. Undefined when the text is not an
 * absolute URL with a host. A character a path cannot hold as it is (a space,
 * non-ASCII) is percent-encoded in UTF-8, as the client had to do to send it.
 */
export function baseStringUri(url: string): string | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)/.exec(url.trim());
  if (!match) return undefined;
  const scheme = match[1].toLowerCase();
  const authority = match[2].slice(match[2].lastIndexOf('@') + 1); // userinfo is never part of it
  const hostPort = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(authority);
  if (!hostPort || hostPort[1] === '') return undefined;
  const host = hostPort[1].toLowerCase();
  const portDigits = hostPort[2] ?? '';
  const port = portDigits === '' ? '' : String(Number(portDigits));
  const showPort = port !== '' && port !== DEFAULT_PORTS[scheme];
  return `${scheme}://${host}${showPort ? `:${port}` : ''}${normalisePath(match[3])}`;
}

function normalisePath(path: string): string {
  if (path === '') return '/';
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const char = path[i];
    if (char === '%' && /^[0-9A-Fa-f]{2}$/.test(path.slice(i + 1, i + 3))) out += char;
    else if (PATH_AS_IS.test(char)) out += char;
    else {
      const codePoint = path.codePointAt(i)!;
      const whole = String.fromCodePoint(codePoint);
      i += whole.length - 1;
      out += percentEncode(whole);
    }
  }
  return out;
}

/**
 * RFC 5849 3.4.1.3.2: every name and value percent-encoded (3.6), sorted by
 * name then value in ascending byte order, duplicates kept, joined as
 * name=value with "&"; oauth_signature left out. (The header's realm never
 * reaches this list: the parser leaves it out, 3.4.1.3.1.)
 */
export function normalizedParameters(params: readonly NameValue[]): string {
  return params
    .filter((p) => p.name !== 'oauth_signature')
    .map((p) => [percentEncode(p.name), percentEncode(p.value)] as const)
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** RFC 5849 3.4.1.1: METHOD & encoded base string URI & encoded normalized parameters. */
export function signatureBaseString(method: string, baseUri: string, params: readonly NameValue[]): string {
  return [method.toUpperCase(), baseUri, normalizedParameters(params)].map(percentEncode).join('&');
}
