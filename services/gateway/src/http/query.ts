import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from './error-response';
import { localsOf } from './request-context';

/**
 * The one way handlers read the query string: URLSearchParams, parsed once
 * per request (express's own query parser is switched off).
 */
export function queryOf(req: IncomingMessage, res: ServerResponse): URLSearchParams {
  const locals = localsOf(res);
  if (!locals.query) {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    locals.query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  }
  return locals.query;
}

/** A query parameter given at most once; `?page=1&page=2` is refused by name instead of silently picking one. */
export function singleParam(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw badRequest('invalid_parameter', `${name} must be given once.`);
  return values[0];
}

/** Shorthand for express handlers. */
export function singleQueryParam(req: IncomingMessage, name: string): string | undefined {
  return singleParam(queryOf(req, (req as IncomingMessage & { res: ServerResponse }).res), name);
}

/** Query parameters other than `known` (first value of each). */
export function otherParams(query: URLSearchParams, known: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of query) if (!known.has(name) && !(name in out)) out[name] = value;
  return out;
}
