import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { SchemeName } from '../auth/scheme';
import { binary, type Contract, type HeaderDoc, type ResponseDoc } from '../http/contract';
import { visibleTo, type ErrorFormat, type HttpMethod, type Route } from '../http/route';
import type { RouteFamily } from '../http/route-family';
import { OAUTH_PATHS } from '../routes/oauth2/oauth-routes';
import { API_VERSION, SERVICE_NAME } from '../routes/system/system-routes';
import { DATA_EXAMPLE_COMPONENTS, dataExamples, type DataExamples } from './data-examples';

/** The OpenAPI document as built (zod-to-openapi's output type). */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** How each auth scheme is presented, in the API's words (Authenticator.describe). */
export type SchemeWords = (name: SchemeName) => string;

const apiError = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Machine-readable, snake_case, stable: branch on it.', example: 'invalid_parameter' }),
      message: z.string().meta({ description: 'For people: what was wrong and what to send instead.', example: 'page_size must be a positive integer.' }),
      requestId: z.string().meta({ description: 'The X-Request-Id of the answer.', example: '4b0c2f0e-6a55-4a0e-9f57-1d2c3b4a5e6f' }),
    }),
  })
  .meta({ id: 'Error', description: "The project's one error shape (docs/errors.md)." });

const oauthError = z
  .object({
    error: z.string().meta({ description: 'An RFC 6749 5.2 error value.', example: 'invalid_client' }),
    error_description: z.string().optional().meta({ example: 'Client authentication (Basic header) failed: The App ID or App Secret is not valid.' }),
  })
  .meta({ id: 'OAuthError', description: 'RFC 6749 section 5.2, on the OAuth endpoints.' });

/** The words of each refusal the edge itself may give, by status. */
const REFUSALS: Record<number, string> = {
  400: 'The request is malformed or a parameter is invalid; the message names it.',
  401: 'No credential, or one that was refused; WWW-Authenticate says which schemes are accepted.',
  403: 'account_disabled: an operator disabled the account the session belongs to.',
  404: 'Nothing of that name (or it is not yours).',
  413: 'The body is larger than the limit.',
  415: 'The body is not in a media type this endpoint reads.',
  429: 'Over a fair-share limit (docs/errors.md): rate_limited when the budget of your app or address is spent (Retry-After says when to retry), too_many_slow_requests when too many slow requests are in flight. RateLimit and RateLimit-Policy say what is left.',
  503: 'A service behind the gateway is unavailable; retry later.',
  504: 'A service behind the gateway did not answer in time.',
};

/**
 * The OpenAPI 3.1 document of every route row: paths, methods, summaries and
 * security come from the rows, parameters, bodies and answers from their
 * contracts (the very schemas the dispatcher validates with), refusals from
 * what each row's auth and body mode can refuse. `servers` is left to the
 * caller, who knows the public base URL of the request.
 */
export function buildOpenApiDocument(rows: readonly Route[], words: SchemeWords, options: { operator?: boolean } = {}): OpenApiDocument {
  // The operator-only rows are in an operator's document only (route.ts): to anyone else they do not exist.
  const routes = rows.filter(visibleTo(options.operator ?? false));
  const registry = new OpenAPIRegistry();
  const schemes = new Set(routes.flatMap((r) => [...r.auth, ...serviceSchemes(r)]));
  for (const name of schemes) registry.registerComponent('securitySchemes', name, securityScheme(name, words(name)));
  for (const route of routes) {
    for (const method of route.methods) registry.registerPath(operation(route, method));
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: SERVICE_NAME,
      version: API_VERSION,
      description:
        'A practice sandbox for API integration: register an app, authenticate every common way, page through realistic data, and practise the awkward parts of HTTP. Never send production credentials here.',
    },
  });
  withDataExamples(document, dataExamples());
  return document;
}

/**
 * The data answers' examples are the data service's own answers, made at
 * build time by its own functions (data-examples.ts), never written here:
 * a written one had drifted (a reference date, a row count, ids that were
 * numbers). Without them (before a build) the schemas show no example.
 */
function withDataExamples(document: OpenApiDocument, examples: DataExamples | undefined): void {
  if (!examples) return;
  const schemas = document.components?.schemas ?? {};
  for (const [id, key] of Object.entries(DATA_EXAMPLE_COMPONENTS)) {
    const schema = schemas[id] as { example?: unknown } | undefined;
    if (schema) schema.example = examples[key].body;
  }
}

function operation(route: Route, method: HttpMethod): RouteConfig {
  const contract = route.contract;
  const path = route.path.replace(/:(\w+)/g, '{$1}');
  return {
    method: method.toLowerCase() as RouteConfig['method'],
    path,
    operationId: operationId(method, route.path),
    summary: route.summary,
    ...(contract?.description ? { description: contract.description } : {}),
    tags: [TAGS[route.family]],
    ...security(route),
    request: {
      params: contract?.params ?? pathParams(route.path),
      ...(contract?.query ? { query: contract.query } : {}),
      ...requestBody(route),
    },
    responses: responses(route),
  };
}

/** The row's auth, or else the credentials its backend checks (Contract.serviceAuth; `{}` is "none needed"). */
function security(route: Route): Pick<RouteConfig, 'security'> {
  if (route.auth.length) return { security: route.auth.map((name) => ({ [name]: [] })) };
  const checked = route.contract?.serviceAuth;
  return checked?.length ? { security: checked.map((name) => (name === 'none' ? {} : { [name]: [] })) } : {};
}

const serviceSchemes = (route: Route): SchemeName[] => (route.contract?.serviceAuth ?? []).filter((name): name is SchemeName => name !== 'none');

function requestBody(route: Route): Pick<NonNullable<RouteConfig['request']>, 'body'> {
  const contract = route.contract;
  if (contract?.body) return { body: { required: !route.bodyOptional, content: { [bodyMediaType(route)]: { schema: contract.body } } } };
  if (!contract || (route.body !== 'raw' && route.body !== 'stream')) return {};
  const { description, content } = contract.unparsedBody ?? {
    description: 'Any bytes, under any Content-Type.',
    content: { '*/*': binary('The body as sent.') },
  };
  // A raw route reads a missing body as no bytes; a stream route's reader needs one.
  return {
    body: { description, required: route.body === 'stream', content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) },
  };
}

/**
 * The route's own answers, then every refusal it can give. Where a refusal
 * shares its status (or its status class) with an answer, a client can get
 * either there, so the status documents both (merged).
 */
function responses(route: Route): Record<string, ResponseConfig> {
  const contract = route.contract;
  const own = answers(contract);
  const result: Record<string, ResponseConfig> = { ...own };
  for (const [status, refusal] of Object.entries(refusals(route))) {
    const answer = own[status] ?? own[`${status[0]}XX`];
    result[status] = answer ? merged(answer, refusal) : refusal;
  }
  return result;
}

/** Without a contract a path parameter is at least documented as a string. */
function pathParams(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  return names.length ? z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) : undefined;
}

function answers(contract: Contract | undefined): Record<string, ResponseConfig> {
  if (!contract) return { 200: { description: 'OK' } };
  const documented: [string, ResponseDoc][] = [...Object.entries(contract.responses), ...Object.entries(contract.statusClasses ?? {})];
  return Object.fromEntries(
    documented.map(([status, doc]) => {
      const content = doc.content ?? (doc.schema ? { [doc.contentType ?? 'application/json']: doc.schema } : undefined);
      return [
        status,
        {
          description: doc.description,
          ...(doc.headers ? { headers: z.object(Object.fromEntries(Object.entries(doc.headers).map(([name, h]) => [name, headerSchema(h)]))) } : {}),
          ...(content ? { content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) } : {}),
        } satisfies ResponseConfig,
      ];
    }),
  );
}

function headerSchema(header: HeaderDoc): z.ZodType {
  const schema = (header.schema ?? z.string()).meta({ description: header.description });
  return header.required ? schema : schema.optional();
}

/**
 * An answer and a refusal with the same status, as one response: either
 * body (anyOf where both are JSON), and their headers, none of them
 * required, since each is carried by one of the two only.
 */
function merged(answer: ResponseConfig, refusal: ResponseConfig): ResponseConfig {
  const content: Record<string, { schema: z.ZodType }> = {};
  for (const [type, media] of [...Object.entries(answer.content ?? {}), ...Object.entries(refusal.content ?? {})]) {
    const schema = (media as { schema: z.ZodType }).schema;
    content[type] = { schema: content[type] ? z.union([content[type]!.schema, schema]) : schema };
  }
  const headers = { ...headerShape(answer.headers), ...headerShape(refusal.headers) };
  return {
    description: `${answer.description} Or refused: ${refusal.description}`,
    ...(Object.keys(headers).length
      ? { headers: z.object(Object.fromEntries(Object.entries(headers).map(([name, schema]) => [name, schema.optional()]))) }
      : {}),
    content,
  };
}

/** Headers as zod schemas, whether they were given as a zod object (answers) or as OpenAPI header objects (refusals). */
function headerShape(headers: ResponseConfig['headers']): Record<string, z.ZodType> {
  if (!headers) return {};
  if (headers instanceof z.ZodObject) return { ...(headers.shape as Record<string, z.ZodType>) };
  return Object.fromEntries(
    Object.entries(headers).map(([name, h]) => [name, z.string().meta({ description: (h as { description?: string }).description ?? name })]),
  );
}

/** Every refusal the row can give: from its auth, body, parameters and backend, plus its contract's own. */
function refusals(route: Route): Record<string, ResponseConfig> {
  const statuses = new Set<number>();
  const { contract } = route;
  if (contract?.query || contract?.params || contract?.body || route.body !== 'none') statuses.add(400);
  // An operator-only row refuses every other caller, a missing or ended session included, as an unknown path does.
  if (route.auth.length && !route.operatorOnly) statuses.add(401);
  // identity refuses a session whose account an operator disabled: 403 account_disabled (docs/operators.md).
  if (route.auth.includes('portal_session') && !route.operatorOnly) statuses.add(403);
  if (route.path.includes(':') || route.operatorOnly) statuses.add(404);
  if (route.body !== 'none') statuses.add(413);
  if (route.body === 'json' || route.body === 'form') statuses.add(415);
  if (route.rateLimited) statuses.add(429);
  if (!contract?.noUpstreamRefusals) {
    statuses.add(503);
    statuses.add(504);
  }
  const own = contract?.refusals ?? {};
  for (const status of Object.keys(own)) statuses.add(Number(status));
  const schema = errorSchema(route.errors);
  return Object.fromEntries(
    [...statuses].sort().map((status) => [
      status,
      {
        description: refusalWords(route, status, own[status]),
        ...(status === 401
          ? { headers: { 'WWW-Authenticate': { description: 'The accepted schemes, one challenge each.', schema: { type: 'string' } } } }
          : {}),
        ...(status === 429 ? { headers: TOO_MANY_HEADERS } : {}),
        content: { 'application/json': { schema } },
      } satisfies ResponseConfig,
    ]),
  );
}

/** What a 429 may carry; none required (a route's own throttle, such as sign-in's, sends Retry-After only). */
const TOO_MANY_HEADERS = {
  'Retry-After': { description: 'Seconds to wait before retrying (rate_limited, and throttles).', schema: { type: 'string' } },
  RateLimit: { description: 'The budgets this request spent: "app";r=0;t=1 (draft-ietf-httpapi-ratelimit-headers).', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'Their policies: "app";q=100;w=2 (q requests at once, refilled over w seconds).', schema: { type: 'string' } },
} as const;

/** A refusal's description: the row's own words, and for a 429 on a rate-limited row the fair-share limits too. */
function refusalWords(route: Route, status: number, own: string | undefined): string {
  if (status === 429 && route.rateLimited && own) return `${own} Or: ${REFUSALS[429]}`;
  if (status === 404 && route.operatorOnly)
    return `${own ?? REFUSALS[404]} Also the answer to anyone without an operator's session (none, an ended one, a learner's): exactly an unknown path's.`;
  return own ?? REFUSALS[status] ?? 'Refused; the message says why.';
}

const errorSchema = (format: ErrorFormat) => (format === 'oauth' ? oauthError : apiError);

function bodyMediaType(route: Route): string {
  return route.body === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
}

/** GET /api/apps/:id → getApiAppsById: unique, stable, readable in generated clients. */
function operationId(method: HttpMethod, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By ${segment.slice(1)}` : segment))
    .join(' ')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return method.toLowerCase() + (words.join('') || 'Root');
}

/** The docs' group of each route family: an operation is tagged with its row's. */
const TAGS: Record<RouteFamily, string> = {
  data: 'Data',
  auth: 'Auth playground',
  http: 'HTTP practice',
  oauth2: 'OAuth 2.0',
  oauth1: 'OAuth 1.0a',
  operators: 'Operators',
  portal: 'Portal',
  system: 'System',
};

/** The security scheme object registerComponent takes (openapi3-ts's, through zod-to-openapi). */
type SecurityScheme = Parameters<OpenAPIRegistry['registerComponent']>[2];

function securityScheme(name: SchemeName, how: string): SecurityScheme {
  const description = `Present ${how}.`;
  switch (name) {
    case 'api_key_header':
      return { type: 'apiKey', in: 'header', name: 'X-API-Key', description };
    case 'api_key_query':
      return { type: 'apiKey', in: 'query', name: 'api_key', description };
    case 'basic':
      return { type: 'http', scheme: 'basic', description };
    case 'digest':
      return { type: 'http', scheme: 'digest', description };
    case 'bearer':
      return { type: 'http', scheme: 'bearer', description };
    case 'jwt':
    case 'portal_session':
      return { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description };
    case 'oauth2':
      return {
        type: 'oauth2',
        description,
        flows: {
          clientCredentials: { tokenUrl: OAUTH_PATHS.token.slice(1), scopes: {} },
          authorizationCode: { authorizationUrl: OAUTH_PATHS.authorize.slice(1), tokenUrl: OAUTH_PATHS.token.slice(1), scopes: {} },
        },
      };
    // OpenAPI has no type for these: described in words, carried in the Authorization (or x-*) headers.
    case 'oauth1':
      return {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: `${description} OAuth 1.0a (RFC 5849) signs each request; see docs/oauth.md.`,
      };
    case 'hmac':
      return { type: 'apiKey', in: 'header', name: 'x-signature', description: `${description} See docs/auth-playground.md for the string to sign.` };
  }
}

/**
 * The document as served at one public base URL: `servers`, and the OAuth 2.0
 * flows' URLs made absolute under it (a relative one would resolve against
 * the host and lose a proxy prefix such as /sandbox).
 */
export function servedAt(document: OpenApiDocument, baseUrl: string): OpenApiDocument {
  const { openapi, info, components, ...rest } = document;
  const schemes = components?.securitySchemes ?? {};
  const oauth2 = schemes.oauth2 as { flows?: Record<string, Record<string, unknown>> } | undefined;
  const flows = oauth2?.flows
    ? Object.fromEntries(
        Object.entries(oauth2.flows).map(([name, flow]) => [
          name,
          Object.fromEntries(Object.entries(flow).map(([key, value]) => [key, /Url$/.test(key) && typeof value === 'string' ? `${baseUrl}/${value}` : value])),
        ]),
      )
    : undefined;
  const securitySchemes = flows ? { ...schemes, oauth2: { ...schemes.oauth2, flows } as (typeof schemes)[string] } : schemes;
  return {
    openapi,
    info,
    servers: [{ url: baseUrl, description: 'This sandbox, as you reached it' }],
    ...rest,
    components: { ...components, securitySchemes },
  };
}
