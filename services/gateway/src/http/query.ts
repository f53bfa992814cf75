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

/**
 * In one pass: the parameters named in `names`, each allowed at most once (as
 * singleParam), and the first value of every other parameter.
 */
export function splitParams<N extends string>(query: URLSearchParams, names: ReadonlySet<N>): { own: Partial<Record<N, string>>; others: Record<string, string> } {
  const own: Partial<Record<N, string>> = {};
  const others: Record<string, string> = {};
  query.forEach((value, name) => {
    if (names.has(name as N)) {
      if (Object.hasOwn(own, name)) throw badRequest('invalid_parameter', `${name} must be given once.`);
      own[name as N] = value;
    } else if (!Object.hasOwn(others, name)) others[name] = value;
  });
  return { own, others };
}
