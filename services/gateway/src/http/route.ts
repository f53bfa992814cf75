import type { MaybePromise } from '../maybe-async';
import type { RouteContext } from './context';
import type { Contract } from './contract';
import { OPEN_CORS, type CorsPolicy } from './cors';
import type { SchemeName } from './credential';
import type { Reply } from './reply';
import type { RouteFamily } from './route-family';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a route reads its request body; nothing is read before the route asks.
 * - none: the body is not read (node discards it).
 * - json: a JSON object (application/json or +json), UTF-8, within the limit.
 * - form: application/x-www-form-urlencoded as ordered pairs, duplicates kept
 *   (OAuth 1.0a signs every parameter in order), and the text as sent.
 * - raw: the bytes as sent, any content type, within the limit.
 * - stream: the body as a stream, for routes that must not buffer it.
 */
export type BodyMode = 'none' | 'json' | 'form' | 'raw' | 'stream';

/** The shape of error bodies: the project's one shape, or RFC 6749 5.2 on the OAuth endpoints. */
export type ErrorFormat = 'api' | 'oauth';

export type Handler = (ctx: RouteContext) => MaybePromise<Reply>;

/**
 * One row of the gateway's route table: what is served, and the policy it is
 * served under. The server, the 405 and OPTIONS answers, the GET /playground
 * map and the GET / links are all derived from these rows, so none of them can
 * drift from what is actually served. A handler returns its answer instead of
 * writing it, so the same row serves a socket, a batch item and a test.
 */
export interface Route {
  readonly methods: readonly HttpMethod[];
  /** path-to-regexp syntax, e.g. /playground/data/:pack/:entity */
  readonly path: string;
  readonly summary: string;
  /** What the route is for (route-family.ts): its usage is counted and its operations tagged under it. */
  readonly family: RouteFamily;
  /** The auth schemes accepted, in the order they are looked for; empty: none needed. */
  readonly auth: readonly SchemeName[];
  /**
   * For a row that needs no credential: the schemes by which a request may
   * still say which app sent it (docs/exercises.md, "HTTP practice"). One
   * that verifies makes the request the app's (its request log, its usage,
   * its exercises, its fair share); none, or one that does not verify,
   * leaves it anonymous, answered as before.
   */
  readonly identifies?: readonly SchemeName[];
  readonly body: BodyMode;
  /** With body json: a request without any body reads as {}. */
  readonly bodyOptional: boolean;
  /** Largest body read, in bytes (the server's BODY_LIMIT unless the row says otherwise). */
  readonly bodyLimit?: number;
  /** Who may read its answers from a browser page (cors.ts). */
  readonly cors: CorsPolicy;
  readonly errors: ErrorFormat;
  /** Deadline of each service call the handler makes (the server's GRPC_DEADLINE_MS unless the row says otherwise). */
  readonly deadlineMs?: number;
  /** Answers hold session tokens or credentials: Cache-Control: no-store on every answer, refusals included. */
  readonly noStore: boolean;
  /** What it accepts and answers (contract.ts): validated before the handler, and the source of its OpenAPI operation. */
  readonly contract?: Contract;
  /**
   * Spends the fair-share budgets (fair-share/): its client address's before
   * authentication and its app's after, each answer carrying the RateLimit
   * fields. True for the API and playground rows; the health checks, the
   * documents (/, /openapi.*) and the OAuth metadata say false.
   */
  readonly rateLimited: boolean;
  /**
   * This request may hold its socket for long (a wait it asked for, a
   * batch): it runs within a slot of the slow-request caps. Asked once the
   * request line is validated, so it may read ctx.input.
   */
  readonly slow?: (ctx: RouteContext) => boolean;
  /**
   * When a request to a row that is not always slow is, in words ("with a
   * delay"): the 429 too_many_slow_requests names the slow rows
   * (fair-share/refusal-words.ts), each with these words.
   */
  readonly slowWhen?: string;
  /**
   * For operators only (docs/operators.md): served to the portal session of
   * a user identity names an operator. Anyone else (no session, a bad or
   * ended one, a learner's) gets exactly the 404 of an unknown path, before
   * anything else about the request is looked at, never a 401 or 403, so a
   * learner cannot tell the row exists; the route map and the OpenAPI
   * document leave the row out unless they are asked for with an
   * operator's session. Such a row accepts portal_session only, and every
   * row at its path is operator-only too (router.ts checks both).
   */
  readonly operatorOnly: boolean;
  readonly handler: Handler;
}

export type RouteSpec = Pick<Route, 'path' | 'summary' | 'handler'> & { methods: HttpMethod | readonly HttpMethod[] } & Partial<
    Omit<Route, 'path' | 'summary' | 'handler' | 'methods' | 'family'>
  >;

/**
 * The row maker of one family: its rows with the API's defaults (no auth, no
 * body, open CORS, the project's error shape, rate-limited, for everyone),
 * each declaring `family`. A route module makes its own once
 * (`const route = routeOf('data')`), since it knows what its rows are for.
 */
export const routeOf =
  (family: RouteFamily) =>
  (spec: RouteSpec): Route =>
    makeRow(family, spec);

function makeRow(family: RouteFamily, spec: RouteSpec): Route {
  const { methods, ...rest } = spec;
  const row: Route = {
    family,
    auth: [],
    body: 'none',
    bodyOptional: false,
    cors: OPEN_CORS,
    errors: 'api',
    noStore: false,
    rateLimited: true,
    operatorOnly: false,
    ...rest,
    methods: typeof methods === 'string' ? [methods] : methods,
  };
  if (row.slowWhen !== undefined && !row.slow) throw new Error(`${row.path}: slowWhen says when a slow row is slow; the row has no slow`);
  if (row.operatorOnly && (row.auth.length !== 1 || row.auth[0] !== 'portal_session'))
    throw new Error(`${row.path}: an operator-only row accepts the portal session and nothing else`);
  return row;
}

/** Whether a request may see the operator-only rows: the operator's routes, map and document. */
export const visibleTo = (operator: boolean) => (row: Route) => operator || !row.operatorOnly;
