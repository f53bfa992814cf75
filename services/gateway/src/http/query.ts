import type { Request } from 'express';
import { badRequest } from './error-response';

/**
 * A query parameter given at most once, as plain text. `?page=1&page=2` or
 * `?page[x]=1` are refused by name instead of silently picking one.
 */
export function singleQueryParam(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest('invalid_parameter', `${name} must be given once, as plain text.`);
  return value;
}

/** Query parameters other than `known`, as single strings (repeated ones keep the first). */
export function otherQueryParams(req: Request, known: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query)) {
    if (known.has(name)) continue;
    if (typeof value === 'string') out[name] = value;
    else if (Array.isArray(value) && typeof value[0] === 'string') out[name] = value[0];
  }
  return out;
}
