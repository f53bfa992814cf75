import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import type { Contract } from '../../http/contract';
import { DOCS_PREFIX, PORTAL_PREFIX, POSTMAN_COLLECTION, POSTMAN_ENVIRONMENT, POSTMAN_PREFIX } from './static-pages';
import { json } from '../../http/reply';
import { routeOf, type Route } from '../../http/route';
import { whenReady } from '../../maybe-async';
import { DATA_ROOT, dataPathExamples } from '../data/data-routes';

/** Every row here is for system (http/route-family.ts). */
const route = routeOf('system');

export const SERVICE_NAME = 'Training Sandbox API';
export const API_VERSION = '1.0.0';

/** The paths GET /playground maps: the learner's side of the API. */
const isPlaygroundPath = (path: string) => path === '/playground' || path.startsWith('/playground/') || path.startsWith('/oauth');

// ---- answers, as the OpenAPI document shows them ----------------------------------

const link = (example: string) => z.string().meta({ description: 'An absolute URL, under the public base URL.', example });
const index = z
  .object({
    name: z.literal(SERVICE_NAME),
    version: z.string().meta({ example: API_VERSION }),
    description: z.string(),
    links: z.object({
      self: link('https://sandbox.example/'),
      health: link('https://sandbox.example/health'),
      ready: link('https://sandbox.example/health/ready'),
      playground: link('https://sandbox.example/playground'),
      data: link('https://sandbox.example/playground/data').optional().meta({ description: 'When the data endpoints are served.' }),
      apps: link('https://sandbox.example/api/apps').optional().meta({ description: 'When the portal API is served.' }),
      portal: link(`https://sandbox.example${PORTAL_PREFIX}/`).optional().meta({ description: 'When the portal API is served.' }),
      docs: link(`https://sandbox.example${DOCS_PREFIX}/`).meta({ description: 'This API’s reference, rendered from the OpenAPI document.' }),
      openapi: link('https://sandbox.example/openapi.json'),
      postmanCollection: link(`https://sandbox.example${POSTMAN_PREFIX}/${POSTMAN_COLLECTION}`).meta({
        description: 'A Postman collection generated from the OpenAPI document.',
      }),
      postmanEnvironment: link(`https://sandbox.example${POSTMAN_PREFIX}/${POSTMAN_ENVIRONMENT}`).meta({ description: 'Its Postman environment.' }),
    }),
  })
  .meta({ id: 'Index' });

const component = z
  .object({
    status: z.enum(['up', 'down']),
    via: z
      .string()
      .optional()
      .meta({ description: 'For a store: the parts that reach it, comma-separated; it is down when any of them finds it down.', example: 'identity, oauth' }),
    reason: z.string().optional().meta({ description: 'Why it is down.', example: 'unreachable' }),
    replicas: z
      .object({ up: z.number().int(), of: z.number().int() })
      .optional()
      .meta({ description: 'For a service: how many of the replicas this gateway reaches serve; one is enough for it to be up.' }),
    checkedAt: z.string().meta({
      description: 'When this gateway last had the verdict confirmed (checked in the background, never for the request).',
      example: '2025-01-01T12:00:00.000Z',
    }),
    ageMs: z.number().int().meta({ description: 'How old the verdict is, in milliseconds: normally under a second.', example: 312 }),
    stale: z.literal(true).optional().meta({
      description:
        'The verdict is older than two checks should make it (the gateway itself is too busy to check): it is still the last one heard, not a sign that the part is down.',
    }),
  })
  .meta({ id: 'ReadinessComponent' });
const components = z
  .record(z.string(), component)
  .meta({ description: 'Every backend service, and every store a part uses, by name, each with the age of its verdict.' });
const checked = { checkedAt: '2025-01-01T12:00:00.000Z', ageMs: 312 };
const ready = z.object({ status: z.literal('ok'), components }).meta({
  id: 'Ready',
  example: {
    status: 'ok',
    components: {
      identity: { status: 'up', replicas: { up: 1, of: 1 }, ...checked },
      mongodb: { status: 'up', via: 'identity', ...checked },
      redis: { status: 'up', via: 'identity, oauth, gateway', ...checked },
    },
  },
});
const notReady = z.object({ status: z.literal('unavailable'), down: z.array(z.string()).meta({ description: 'What is down, sorted.' }), components }).meta({
  id: 'NotReady',
  example: {
    status: 'unavailable',
    down: ['data'],
    components: {
      data: { status: 'down', reason: 'unreachable', replicas: { up: 0, of: 1 }, ...checked },
      identity: { status: 'up', replicas: { up: 1, of: 1 }, ...checked },
    },
  },
});

const playgroundMap = z
  .object({
    name: z.literal(SERVICE_NAME),
    version: z.string().meta({ example: API_VERSION }),
    count: z.number().int(),
    endpoints: z.array(
      z.object({
        methods: z.array(z.string()),
        path: z.string().meta({ description: 'In path-to-regexp syntax (:name for a path parameter).', example: '/playground/data/:pack/:entity' }),
        url: z.string().meta({
          description: 'The path under this base URL, as a template where it has parameters.',
          example: 'http://127.0.0.1:8080/playground/data/:pack/:entity',
        }),
        example: z.string().optional().meta({
          description:
            "Only for a path with parameters: a URL that works, its parameters filled with real values (the data service's catalog gives the pack and entity). Absent while that service cannot answer.",
          example: 'http://127.0.0.1:8080/playground/data/fpa/departments',
        }),
        summary: z.string(),
        auth: z.array(z.object({ scheme: z.string(), how: z.string() })).meta({ description: 'The credentials accepted, in words; empty: none needed.' }),
      }),
    ),
  })
  .meta({ id: 'PlaygroundMap' });

// None of these can answer the gateway's 503 or 504: they call no service, or (readiness) make every failure their answer.
const indexContract = { responses: { 200: { description: 'Name, version and links.', schema: index } }, noUpstreamRefusals: true } satisfies Contract;
const health = {
  responses: {
    200: { description: 'The gateway process answers.', schema: z.object({ status: z.literal('ok') }).meta({ id: 'Health', example: { status: 'ok' } }) },
  },
  noUpstreamRefusals: true,
} satisfies Contract;
const noStore = { 'Cache-Control': { description: 'no-store: a readiness answer is never reused.', required: true } };
const readinessContract = {
  responses: {
    200: { description: 'Every backend service and store answers.', schema: ready, headers: noStore },
    503: { description: 'Something is down (or the gateway is shutting down): down names it.', schema: notReady, headers: noStore },
  },
  description:
    'Answered at once from verdicts this gateway keeps current in the background (each replica checked every second, each store reported by its service as it changes), so a busy machine delays no answer and fails none; each part says how old its verdict is.',
  noUpstreamRefusals: true,
} satisfies Contract;
const serving = z.object({ status: z.literal('ok') }).meta({ id: 'Serving', example: { status: 'ok' } });
const draining = z
  .object({ status: z.literal('unavailable'), down: z.tuple([z.literal('gateway')]) })
  .meta({ id: 'Draining', example: { status: 'unavailable', down: ['gateway'] } });
const servingContract = {
  responses: {
    200: { description: 'This gateway takes requests (a backend that is down makes only its own routes answer 503).', schema: serving, headers: noStore },
    503: { description: 'This gateway is shutting down: send requests to another.', schema: draining, headers: noStore },
  },
  description:
    'Unlike /health/ready, a backend that is down does not make this fail: only the routes that need that backend answer 503 (with Retry-After, naming it), and everything else keeps working. 503 only while this gateway shuts down.',
  noUpstreamRefusals: true,
} satisfies Contract;
const map = {
  responses: { 200: { description: 'Every playground endpoint, from the route table.', schema: playgroundMap } },
  noUpstreamRefusals: true,
} satisfies Contract;

/** A template's URL with every parameter filled from `values`; undefined for a path without parameters, or one with a parameter `values` lacks. */
function exampleUrl(baseUrl: string, path: string, values: Readonly<Record<string, string>>): string | undefined {
  if (!path.includes(':')) return undefined;
  let complete = true;
  const filled = path.replace(/:(\w+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) complete = false;
    return encodeURIComponent(value ?? '');
  });
  return complete ? `${baseUrl}${filled}` : undefined;
}

/** GET /, /health, /health/ready, /health/serving and /playground. `allRoutes` is the finished table, read per request. */
export function systemRoutes(deps: GatewayDeps, allRoutes: () => Route[]): Route[] {
  const served = (path: string) => allRoutes().some((r) => r.path === path);

  return [
    route({
      methods: 'GET',
      path: '/',
      summary: 'Service name, version and links to everything else.',
      // A document, like /openapi.json: not counted against any budget.
      rateLimited: false,
      contract: indexContract,
      handler: (ctx) => {
        const b = ctx.baseUrl;
        return json({
          name: SERVICE_NAME,
          version: API_VERSION,
          description: 'A practice sandbox for API integration. Never send production credentials here.',
          links: {
            self: `${b}/`,
            health: `${b}/health`,
            ready: `${b}/health/ready`,
            playground: `${b}/playground`,
            ...(served(DATA_ROOT) ? { data: `${b}${DATA_ROOT}` } : {}),
            ...(served('/api/apps') ? { apps: `${b}/api/apps`, portal: `${b}${PORTAL_PREFIX}/` } : {}),
            docs: `${b}${DOCS_PREFIX}/`,
            openapi: `${b}/openapi.json`,
            postmanCollection: `${b}${POSTMAN_PREFIX}/${POSTMAN_COLLECTION}`,
            postmanEnvironment: `${b}${POSTMAN_PREFIX}/${POSTMAN_ENVIRONMENT}`,
          },
        });
      },
    }),
    // Probes and monitors must never be refused for their rate.
    route({
      methods: 'GET',
      path: '/health',
      summary: 'Liveness: the gateway process answers.',
      contract: health,
      rateLimited: false,
      handler: () => json({ status: 'ok' }),
    }),
    route({
      methods: 'GET',
      path: '/health/ready',
      summary: 'Readiness: every backend service and store answers (503 naming what is down).',
      contract: readinessContract,
      rateLimited: false,
      handler: () => {
        const now = Date.now();
        const gatewayDown = (reason: string) => ({ gateway: { status: 'down', reason, checkedAt: new Date(now).toISOString(), ageMs: 0 } });
        if (deps.isDraining())
          return json({ status: 'unavailable', down: ['gateway'], components: gatewayDown('shutting down') }, 503, { 'Cache-Control': 'no-store' });
        if (!deps.readiness)
          return json({ status: 'unavailable', down: ['gateway'], components: gatewayDown('not watching its backends') }, 503, { 'Cache-Control': 'no-store' });
        const readiness = deps.readiness.snapshot(now);
        return json(
          {
            status: readiness.ready ? 'ok' : 'unavailable',
            ...(readiness.ready ? {} : { down: readiness.down }),
            components: readiness.components,
          },
          readiness.ready ? 200 : 503,
          { 'Cache-Control': 'no-store' },
        );
      },
    }),
    route({
      methods: 'GET',
      path: '/health/serving',
      summary: "Whether this gateway takes requests: a load balancer's readiness (Kubernetes probes it).",
      contract: servingContract,
      rateLimited: false,
      handler: () =>
        deps.isDraining()
          ? json({ status: 'unavailable', down: ['gateway'] }, 503, { 'Cache-Control': 'no-store' })
          : json({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' }),
    }),
    route({
      methods: 'GET',
      path: '/playground',
      summary: 'Map of every playground endpoint.',
      contract: map,
      // Asked with an operator's session, the map lists the operator-only rows too (docs/operators.md); to anyone else they do not exist.
      handler: (ctx) =>
        whenReady(deps.isOperator?.(ctx) ?? false, async (operator) => {
          const b = ctx.baseUrl;
          const rows = allRoutes().filter((r) => (r.operatorOnly ? operator : isPlaygroundPath(r.path)));
          const values = rows.some((r) => r.path.startsWith(`${DATA_ROOT}/:`)) ? await dataPathExamples(deps, ctx) : {};
          const endpoints = rows.map((r) => {
            const example = exampleUrl(b, r.path, values);
            return {
              methods: r.methods,
              path: r.path,
              url: `${b}${r.path}`,
              ...(example ? { example } : {}),
              summary: r.summary,
              auth: deps.describeAuth(r.auth),
            };
          });
          // The answer depends on who asks: a shared cache must not hand an operator's map to a learner, or a learner's to an operator.
          return json({ name: SERVICE_NAME, version: API_VERSION, count: endpoints.length, endpoints }, 200, { Vary: 'Authorization' });
        }),
    }),
  ];
}
