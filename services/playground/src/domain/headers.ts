import type { Header } from './http';

/**
 * Node's rules for a repeated request header (http.IncomingMessage#headers):
 * these keep their first value and drop the rest, because a second one is
 * meaningless or dangerous (two Content-Lengths, two Hosts).
 */
const FIRST_WINS = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

export type HeaderMap = Record<string, string | string[]>;

/** How node combines repeated values of one header name. */
export function joinRule(lowerName: string): 'first' | 'array' | 'semicolon' | 'comma' {
  if (FIRST_WINS.has(lowerName)) return 'first';
  if (lowerName === 'set-cookie') return 'array';
  if (lowerName === 'cookie') return 'semicolon';
  return 'comma';
}

/**
 * The headers as node presents them to a server: lower-case names, in order
 * of first appearance; repeated ones dropped (the FIRST_WINS names), kept as
 * an array (Set-Cookie), joined with "; " (Cookie) or with ", " (all others).
 */
export function normaliseHeaders(headers: readonly Header[]): HeaderMap {
  const map: HeaderMap = Object.create(null);
  for (const { name, value } of headers) {
    const key = name.toLowerCase();
    const seen = map[key];
    const rule = joinRule(key);
    if (seen === undefined) map[key] = rule === 'array' ? [value] : value;
    else if (rule === 'array') (seen as string[]).push(value);
    else if (rule === 'semicolon') map[key] = `${seen as string}; ${value}`;
    else if (rule === 'comma') map[key] = `${seen as string}, ${value}`;
  }
  return map;
}

/** The first value of a header, by case-insensitive name (what node's map would hold for a FIRST_WINS name). */
export function headerValue(headers: readonly Header[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === lower)?.value;
}

/** What happened to each header name sent more than once, in words. */
export function repeatedHeaderNotes(headers: readonly Header[]): string[] {
  const counts = new Map<string, { shownName: string; count: number }>();
  for (const { name } of headers) {
    const key = name.toLowerCase();
    const seen = counts.get(key);
    if (seen) seen.count++;
    else counts.set(key, { shownName: name, count: 1 });
  }
  const notes: string[] = [];
  for (const [key, { shownName, count }] of counts) {
    if (count < 2) continue;
    const rule = joinRule(key);
    const what =
      rule === 'first'
        ? 'node keeps the first value and drops the rest (a second value of this header is meaningless or ambiguous)'
        : rule === 'array'
          ? 'kept as an array, one item per line (Set-Cookie values cannot be joined with commas)'
          : rule === 'semicolon'
            ? 'joined with "; " into one Cookie value'
            : 'joined with ", " into one value (RFC 9110 5.3: a list header may be split over several lines)';
    notes.push(`${shownName} was sent ${count} times: ${what}.`);
  }
  return notes;
}
