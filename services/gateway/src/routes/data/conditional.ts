import type { IncomingHttpHeaders } from 'node:http';

/**
 * RFC 9110 §13.1.2: If-None-Match uses weak comparison, so W/"x" matches "x",
 * and `*` matches any current representation.
 */
export function matchesIfNoneMatch(headers: IncomingHttpHeaders, etag: string): boolean {
  const header = headers['if-none-match'];
  if (!header || !etag) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const ours = opaque(etag);
  return header.split(',').some((candidate) => opaque(candidate) === ours);
}
