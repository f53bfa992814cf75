import { validateHeaderValue, type OutgoingHttpHeaders } from 'node:http';
import { playgroundApi } from '@sandbox/contracts';
import { quoteInput } from '@sandbox/runtime';
import type { RouteContext } from '../../http/context';
import type { CorsPolicy } from '../../http/cors';
import { refusal } from '../../http/errors';
import { empty, type Reply } from '../../http/reply';

/** The CORS lab's steering parameters (docs/http-practice.md): each replaces what that answer allows. */
export const LAB_PARAMETERS = ['allow_origin', 'allow_methods', 'allow_headers', 'allow_credentials', 'max_age'] as const;

/**
 * What the CORS lab allows for one request: by default exactly what was asked
 * (the caller's origin, the requested method and headers, never `*`, which
 * browsers refuse for credentialed requests); the query's steering
 * parameters replace any of it, so a learner can make a browser fail on
 * purpose. The preflight goes to the same URL with the same query, so the
 * same parameters steer it.
 */
function labAllows(ctx: RouteContext) {
  const q = ctx.query;
  const origin = typeof ctx.headers.origin === 'string' ? ctx.headers.origin : undefined;
  const list = (value: string | null) =>
    value === null
      ? undefined
      : value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean);
  return {
    origin: steering(q.get('allow_origin')) ?? origin,
    methods: list(steering(q.get('allow_methods'))),
    headers: list(steering(q.get('allow_headers'))),
    credentials: q.get('allow_credentials') === 'true',
    maxAge: labMaxAge(q.get('max_age')),
  };
}

/**
 * max_age as the lab's GET contract reads it (http-practice-contracts.ts, the
 * same words; documented-examples and cors tests compare the two): whole
 * seconds from 0 to MAX_AGE_LIMIT, the default when absent. A preflight is
 * checked by no contract, so it is checked here: a value out of the
 * documented range is refused, not sent on to the browser.
 */
function labMaxAge(value: string | null): { seconds: string } | { problem: string } {
  const { MAX_AGE_LIMIT, LAB_DEFAULT_MAX_AGE } = playgroundApi;
  if (value === null) return { seconds: String(LAB_DEFAULT_MAX_AGE) };
  if (!/^[0-9]+$/.test(value)) {
    return {
      problem: `max_age must be a whole number of seconds from 0 to ${MAX_AGE_LIMIT}${/^-[0-9]+$/.test(value) ? ', not negative' : ''}; got ${quoteInput(value)}.`,
    };
  }
  const seconds = Math.min(Number(value), Number.MAX_VALUE);
  if (seconds > MAX_AGE_LIMIT) return { problem: `max_age must be from 0 to ${MAX_AGE_LIMIT} seconds; got ${seconds}.` };
  return { seconds: String(seconds) };
}

/**
 * A steering value only if it can be a header value. The lab routes' contract
 * refuses a bad one with a 400; that refusal (and a preflight, which no
 * contract checks) still gets lab headers, so a value node could not write
 * is left out rather than failing the answer.
 */
function steering(value: string | null): string | null {
  if (value === null) return null;
  try {
    validateHeaderValue('x-steering', value);
    return value;
  } catch {
    return null;
  }
}

/**
 * The CORS lab's policy ("lab"): the caller's origin reflected (never `*`),
 * steerable by query parameters so a learner can make a browser fail on
 * purpose (docs/http-practice.md, "CORS lab").
 */
export const LAB_CORS: CorsPolicy = {
  headers(ctx) {
    const allows = labAllows(ctx);
    // Always Vary: Origin, so a cache never serves one origin's answer to another.
    const headers: Record<string, string> = { Vary: 'Origin', 'Access-Control-Expose-Headers': playgroundApi.LAB_EXPOSED_HEADERS.join(', ') };
    if (allows.origin) headers['Access-Control-Allow-Origin'] = allows.origin;
    if (allows.credentials) headers['Access-Control-Allow-Credentials'] = 'true';
    return headers;
  },
  preflight: labPreflight,
};

/** The lab answers the requested method and headers explicitly, unless steered to allow less. */
function labPreflight(ctx: RouteContext): Reply {
  const requestedMethod = String(ctx.headers['access-control-request-method']);
  const requestedHeaders = ctx.headers['access-control-request-headers'];
  const allows = labAllows(ctx);
  if ('problem' in allows.maxAge) {
    // The browser fails the preflight on a 400; its network panel shows why, as the GET would say it.
    const refused = refusal(400, 'invalid_parameter', allows.maxAge.problem, ctx.requestId);
    refused.headers['X-CORS-Verdict'] = `refused: ${allows.maxAge.problem}`;
    return refused;
  }
  const asked = requestedHeaders
    ? requestedHeaders
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean)
    : [];
  const allowedMethods = allows.methods ?? [requestedMethod];
  const allowedHeaders = allows.headers ?? asked;
  const headers: OutgoingHttpHeaders = {
    'Access-Control-Allow-Methods': allowedMethods.join(', '),
    'Access-Control-Max-Age': allows.maxAge.seconds,
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    'X-CORS-Verdict': verdict(ctx, allows, requestedMethod, asked, allowedMethods, allowedHeaders),
  };
  if (allowedHeaders.length) headers['Access-Control-Allow-Headers'] = allowedHeaders.join(', ');
  return empty(204, headers);
}

/** Why a browser will accept or refuse this preflight, in words (shown in the browser's network panel). */
function verdict(
  ctx: RouteContext,
  allows: ReturnType<typeof labAllows>,
  method: string,
  asked: string[],
  allowedMethods: string[],
  allowedHeaders: string[],
): string {
  const origin = typeof ctx.headers.origin === 'string' ? ctx.headers.origin : '(none)';
  const problems: string[] = [];
  if (allows.origin !== origin && allows.origin !== '*') problems.push(`origin ${origin} is not the allowed ${allows.origin ?? '(none)'}`);
  if (allows.origin === '*' && allows.credentials) problems.push('allow_origin=* cannot be used with credentials');
  const lower = allowedMethods.map((m) => m.toUpperCase());
  // Fetch: a CORS-safelisted method (GET, HEAD, POST) needs no permission; * counts only without credentials.
  const safelisted = ['GET', 'HEAD', 'POST'].includes(method.toUpperCase());
  const wildcard = lower.includes('*') && !allows.credentials;
  if (!safelisted && !wildcard && !lower.includes(method.toUpperCase()))
    problems.push(`method ${method} is not in the allowed ${allowedMethods.join(', ') || '(none)'}`);
  const allowedLower = allowedHeaders.map((h) => h.toLowerCase());
  const headerWildcard = allowedLower.includes('*') && !allows.credentials;
  const missing = asked.filter((h) => !allowedLower.includes(h) && !headerWildcard);
  if (missing.length) problems.push(`header${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not in the allowed ${allowedHeaders.join(', ') || '(none)'}`);
  return problems.length ? `refused: ${problems.join('; ')}` : `allowed: ${method} from ${origin}${asked.length ? ` with ${asked.join(', ')}` : ''}`;
}
