import { quoteInput } from '@sandbox/runtime';

/** RFC 9110 5.6.2 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

/**
 * The auth-params of `Authorization: Digest …` (RFC 9110 11.4 / RFC 7616
 * 3.4): names lowercased, values unquoted (backslash escapes removed). A
 * string is the reason the header does not parse.
 */
export function parseDigestAuthorization(header: string): Map<string, string> | string {
  const scheme = /^\s*Digest(?:[ \t]+|$)/i.exec(header);
  if (!scheme) return 'The Authorization header does not use the Digest scheme (it must start with "Digest ").';
  const params = new Map<string, string>();
  let rest = header.slice(scheme[0].length);
  const skip = (pattern: RegExp) => {
    rest = rest.replace(pattern, '');
  };
  skip(/^[ \t,]+/);
  while (rest !== '') {
    const name = TOKEN.exec(rest)?.[0];
    if (!name)
      return `The Digest header does not parse near ${quoteInput(rest, { max: 20, quotes: 'single' })}: expected name=value pairs separated by commas.`;
    rest = rest.slice(name.length);
    skip(/^[ \t]*/);
    if (!rest.startsWith('=')) return `The Digest header's ${name} has no value (expected ${name}=value).`;
    rest = rest.slice(1);
    skip(/^[ \t]*/);
    let value: string;
    if (rest.startsWith('"')) {
      const quoted = /^"((?:[^"\\]|\\.)*)"/s.exec(rest);
      if (!quoted) return `The Digest header's ${name} value has no closing double quote.`;
      value = quoted[1].replace(/\\(.)/gs, '$1');
      rest = rest.slice(quoted[0].length);
    } else {
      const token = TOKEN.exec(rest)?.[0];
      if (!token) return `The Digest header's ${name} value is neither a token nor a quoted string.`;
      value = token;
      rest = rest.slice(token.length);
    }
    const key = name.toLowerCase();
    if (params.has(key)) return `The Digest header sends ${key} twice.`;
    params.set(key, value);
    skip(/^[ \t]*/);
    if (rest !== '' && !rest.startsWith(',')) return `The Digest header does not parse after ${name}: pairs are separated by commas.`;
    skip(/^[ \t,]+/);
  }
  return params;
}
