import type { RequestHandler } from 'express';

/**
 * The sandbox is called from learners' pages on any origin, with credentials in
 * headers (never cookies), so every origin is allowed without credentials.
 * Clients need to read the paging and tracing headers, so those are exposed.
 * Every response carries these (request-context.ts commonHeaders).
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': ['Link', 'ETag', 'X-Request-Id', 'WWW-Authenticate', 'Retry-After', 'Location'].join(', '),
});

/** Answers CORS preflight requests for any path. */
export const corsPreflight: RequestHandler = (req, res, next) => {
  if (req.method === 'OPTIONS' && req.get('Access-Control-Request-Method')) {
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
    const requested = req.get('Access-Control-Request-Headers');
    if (requested) res.setHeader('Access-Control-Allow-Headers', requested);
    res.setHeader('Access-Control-Max-Age', '600');
    res.vary('Origin').vary('Access-Control-Request-Headers');
    res.status(204).end();
    return;
  }
  next();
};
