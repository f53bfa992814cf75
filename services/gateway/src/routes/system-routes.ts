import type { GatewayDeps } from '../deps';
import { PORTAL_PREFIX } from '../http/portal-assets';
import { json } from '../http/reply';
import { route, type Route } from '../http/route';
import { checkReadiness } from '../readiness';
import { DATA_ROOT } from './data-routes';

export const SERVICE_NAME = 'Training Sandbox API';
export const API_VERSION = '1.0.0';

/** The paths GET /playground maps: the learner's side of the API. */
const isPlaygroundPath = (path: string) => path === '/playground' || path.startsWith('/playground/') || path.startsWith('/oauth');

/** GET /, /health, /health/ready and /playground. `allRoutes` is the finished table, read per request. */
export function systemRoutes(deps: GatewayDeps, allRoutes: () => Route[]): Route[] {
  const served = (path: string) => allRoutes().some((r) => r.path === path);

  return [
    route({
      methods: 'GET',
      path: '/',
      summary: 'Service name, version and links to everything else.',
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
          },
        });
      },
    }),
    route({ methods: 'GET', path: '/health', summary: 'Liveness: the gateway process answers.', handler: () => json({ status: 'ok' }) }),
    route({
      methods: 'GET',
      path: '/health/ready',
      summary: 'Readiness: every backend service and store answers (503 naming what is down).',
      handler: async () => {
        if (deps.isDraining()) {
          return json({ status: 'unavailable', down: ['gateway'], components: { gateway: { status: 'down', reason: 'shutting down' } } }, 503);
        }
        const readiness = await checkReadiness(deps.clients, deps.config.readinessTimeoutMs);
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
      path: '/playground',
      summary: 'Map of every playground endpoint.',
      handler: (ctx) => {
        const b = ctx.baseUrl;
        const endpoints = allRoutes()
          .filter((r) => isPlaygroundPath(r.path))
          .map((r) => ({ methods: r.methods, path: r.path, url: `${b}${r.path}`, summary: r.summary, auth: deps.describeAuth(r.auth) }));
        return json({ name: SERVICE_NAME, version: API_VERSION, count: endpoints.length, endpoints });
      },
    }),
  ];
}
