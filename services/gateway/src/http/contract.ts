import { z } from 'zod';
import { quoteInput } from '@sandbox/runtime';
import type { FormBody } from './body';
import type { RouteContext } from './context';
import type { SchemeName } from './credential';
import { badRequest } from './errors';

/*
 * Schemas carry their documentation with zod's own .meta({ description,
 * example, id }); zod-to-openapi reads it (an `id` makes a named component).
 */

/** A response header: a string unless its schema says more; required: every answer with that status carries it. */
export interface HeaderDoc {
  readonly description: string;
  readonly schema?: z.ZodType;
  readonly required?: boolean;
}

/** One documented answer of a route. */
export interface ResponseDoc {
  readonly description: string;
  /** The body's schema; absent: no body (204, 304, a redirect). */
  readonly schema?: z.ZodType;
  /** application/json unless said. */
  readonly contentType?: string;
  /** The body's schema by media type, for an answer that comes in several (JSON, or text when asked for); instead of schema and contentType. */
  readonly content?: Readonly<Record<string, z.ZodType>>;
  readonly headers?: Readonly<Record<string, HeaderDoc>>;
}

/** OpenAPI's keys for a whole class of statuses. */
export type StatusClass = '1XX' | '2XX' | '3XX' | '4XX' | '5XX';

/** Bytes of any kind, as OpenAPI tools read a binary string (a generated client sends a file or a buffer). */
export const binary = (description: string) => z.string().meta({ format: 'binary', description });

/** A moment in an answer, as every answer writes one. */
export const timestamp = z.string().meta({ description: 'ISO 8601, UTC.', example: '2030-01-01T10:00:00.000Z' });

/**
 * What a route accepts and answers, as zod schemas: the dispatcher validates
 * the request with them before the handler runs (the handler reads
 * ctx.input), and the OpenAPI document is built from the same schemas, so a
 * parameter cannot be validated one way and documented another.
 *
 * Refusals are documented from the row itself (its auth, body mode and
 * contract), so a contract lists only the answers a client hopes for, and
 * any refusal particular to the route (`refusals`: status to description).
 */
export interface Contract {
  /** Path parameters, by the names in the row's path. */
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** The JSON object (body json), or the form as single values (body form; formFields below). */
  readonly body?: z.ZodType;
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  readonly refusals?: Readonly<Record<number, string>>;
  /**
   * The code a field's failure is refused with, by the field's path, where
   * the protocol names one (RFC 6749 5.2: an unknown grant_type is
   * unsupported_grant_type); any other failure is invalid_parameter or
   * invalid_body.
   */
  readonly refusalCodes?: Readonly<Record<string, string>>;
  /**
   * Parts documented from their schemas but checked by the backend service
   * that owns every rule about them, not by the dispatcher: which refusals of
   * an OAuth 2.0 authorization request redirect (RFC 6749 4.1.2.1), or a
   * signature over the parameters exactly as sent (RFC 5849 3.4.1). The
   * handler reads such a part from ctx (ctx.query, ctx.body), never ctx.input.
   */
  readonly checkedByService?: readonly ('query' | 'body')[];
  /**
   * Sets ctx.logAs from the body as sent, before the contract may refuse it,
   * so that the app a request names (an OAuth client_id) sees its refused
   * attempts in its request log too.
   */
  readonly logAs?: (ctx: RouteContext) => void;
  /** Longer than the row's summary: what a learner should know. */
  readonly description?: string;

  // What only the OpenAPI document reads (the dispatcher never looks at these):

  /**
   * Answers of a whole status class, for a route whose status the client
   * picks (/playground/response). An exact key wins over its class in
   * OpenAPI, so a refusal with a status inside a class documented here is
   * documented as either (document.ts, merged).
   */
  readonly statusClasses?: Readonly<Partial<Record<StatusClass, ResponseDoc>>>;
  /**
   * A raw or stream body, which the gateway passes on without parsing it:
   * its media types and schemas; whoever reads the body checks it. Absent on
   * a raw or stream route: any bytes, under any type.
   */
  readonly unparsedBody?: { readonly description: string; readonly content: Readonly<Record<string, z.ZodType>> };
  /** The gateway's 503 and 504 never reach the client: the route calls no service, or makes every failure its own answer. */
  readonly noUpstreamRefusals?: boolean;
  /**
   * Credentials a backend service checks itself (the OAuth endpoints' client
   * authentication, RFC 6749 2.3.1), documented as the operation's security;
   * 'none': a request may also come without any (client_secret_post carries
   * them in the body). The dispatcher enforces only the row's `auth`.
   */
  readonly serviceAuth?: readonly (SchemeName | 'none')[];
}

/** What the dispatcher validated: the handler's typed view of the request. */
export interface Input {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
/** A part the service checks is not in ctx.input. */
type Checked<C extends Contract, P extends 'query' | 'body'> = C extends { checkedByService: readonly (infer U)[] }
  ? P extends U
    ? undefined
    : Out<C[P]>
  : Out<C[P]>;

/** The validated request of a route with this contract, typed by its schemas. */
export function inputOf<C extends Contract>(
  ctx: RouteContext,
  _contract: C,
): { params: Out<C['params']>; query: Checked<C, 'query'>; body: Checked<C, 'body'> } {
  if (!ctx.input) throw new Error(`${ctx.method} ${ctx.path}: the route has no contract, so nothing was validated`);
  return ctx.input as never;
}

/** The path parameters and query, checked against the contract (before the body is read). */
export function parseRequestLine(ctx: RouteContext, contract: Contract): void {
  const input: Input = { params: ctx.params, query: {}, body: undefined };
  if (contract.params) input.params = check(contract, contract.params, ctx.params, 'invalid_parameter');
  if (contract.query && !contract.checkedByService?.includes('query')) input.query = check(contract, contract.query, singleValues(ctx), 'invalid_parameter');
  ctx.input = input;
}

/** The body the dispatcher read, checked against the contract; a form as single values (formFields). */
export function parseRequestBody(ctx: RouteContext, contract: Contract): void {
  const { input } = ctx;
  if (!contract.body || !input || contract.checkedByService?.includes('body')) return;
  contract.logAs?.(ctx);
  const body = ctx.route?.body === 'form' ? formFields(ctx.body as FormBody) : ctx.body;
  input.body = check(contract, contract.body, body, 'invalid_body');
}

/**
 * A form body as its schema sees it: one value per parameter (RFC 6749 3.1,
 * 3.2). A parameter sent without a value is as if omitted; one sent more
 * than once is refused by name, never silently picked. The pairs stay in
 * ctx.body as sent, in order, for a handler that needs them so.
 */
function formFields(form: FormBody): Record<string, string> {
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [name, value] of form.pairs) {
    if (value === '') continue;
    if (values.has(name)) repeated.add(name);
    else values.set(name, value);
  }
  if (repeated.size) {
    const names = [...repeated].map((name) => quoteInput(name, { quotes: 'single' }));
    throw badRequest('invalid_body', `${names.join(', ')} ${names.length === 1 ? 'was' : 'were'} sent more than once; send each parameter once.`);
  }
  // fromEntries defines each name as an own property, even one called __proto__.
  return Object.fromEntries(values);
}

/**
 * A query as single values: a parameter sent twice is refused by name, since
 * every documented parameter takes one value.
 */
function singleValues(ctx: RouteContext): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of new Set(ctx.query.keys())) {
    const all = ctx.query.getAll(name);
    if (all.length > 1) throw badRequest('invalid_parameter', `${name} was sent ${all.length} times; send it once.`);
    values[name] = all[0]!;
  }
  return values;
}

/** The first problem as a 400 that names the field and says what to send. */
function check<S extends z.ZodType>(contract: Contract, schema: S, value: unknown, partCode: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length ? issue.path.join('.') : '';
  const code = contract.refusalCodes?.[where] ?? partCode;
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown ${partCode === 'invalid_body' ? 'field' : 'parameter'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}${acceptedKeys(schema)}.`
      : where && !issue.message.startsWith(where)
        ? `${where}: ${issue.message}`
        : issue.message;
  throw badRequest(code, message.endsWith('.') ? message : `${message}.`);
}

function acceptedKeys(schema: z.ZodType): string {
  const shape = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  return shape.length ? `; this endpoint accepts ${shape.join(', ')}` : '';
}
