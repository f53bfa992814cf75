import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { match } from 'path-to-regexp';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One row of the gateway's route table. Express registration, the GET /playground
 * map, GET / links and the 405 answer are all derived from these rows, so
 * none of them can drift from what is actually served.
 */
export interface RouteDef {
  methods: HttpMethod[];
  /** Express 5 path, e.g. /playground/data/:pack/:entity */
  path: string;
  summary: string;
  /** What the caller must present, in words (shown in the /playground map). */
  auth?: string;
  handlers: RequestHandler[];
  /** Served without express (see hot-routes.ts); GET/HEAD only. */
  hot?: HotHandler;
}

/** What a hot handler answers; the request id and CORS headers are added for it (hot-routes.ts). */
export interface HotResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  /** Omitted for 304; node leaves it out of HEAD responses itself. */
  body?: Uint8Array;
}

/**
 * A hot route's handler: plain node request and response (for its locals and
 * close event), decoded path parameters. It returns its answer rather than
 * writing it, synchronously when it can, and throws (or rejects) with an
 * AppError to answer in the one error shape.
 */
export type HotHandler = (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => HotResponse | Promise<HotResponse>;

export function hotRoute(path: string, summary: string, handler: HotHandler): RouteDef {
  return { methods: ['GET'], path, summary, handlers: [], hot: handler };
}

export function route(methods: HttpMethod | HttpMethod[], path: string, summary: string, ...handlers: RequestHandler[]): RouteDef {
  return { methods: Array.isArray(methods) ? methods : [methods], path, summary, handlers };
}

export function withAuth(def: RouteDef, auth: string): RouteDef {
  return { ...def, auth };
}

/** The methods served at a path, for 405 answers; undefined when no route matches. */
export function allowedMethods(routes: RouteDef[]): (path: string) => HttpMethod[] | undefined {
  const matchers = routes.map((r) => ({ matches: match(r.path, { decode: false }), methods: r.methods }));
  return (path) => {
    const allowed = new Set<HttpMethod>();
    for (const m of matchers) if (m.matches(path)) for (const method of m.methods) allowed.add(method);
    return allowed.size ? [...allowed] : undefined;
  };
}
