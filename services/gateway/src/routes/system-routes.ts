import type { Request } from 'express';
import type { GatewayDeps } from '../deps';
import { publicBaseUrl } from '../http/public-url';
import { route, type RouteDef } from '../http/route-table';
import { checkReadiness } from '../readiness';

export const SERVICE_NAME = 'Training Sandbox API';
export const API_VERSION = '1.0.0';

/** GET /, /health, /health/ready and /playground. `allRoutes` is the finished table, read per request. */
export function systemRoutes(deps: GatewayDeps, allRoutes: () => RouteDef[]): RouteDef[] {
  const base = (req: Request) => publicBaseUrl(req, deps.config);

  return [
    route('GET', '/', 'Service name, version and links to everything else.', (req, res) => {
      const b = base(req);
      res.json({
        name: SERVICE_NAME,
        version: API_VERSION,
        description: 'A practice sandbox for API integration. Never send production credentials here.',
        links: {
          self: `${b}/`,
          health: `${b}/health`,
          ready: `${b}/health/ready`,
          playground: `${b}/playground`,
          ...(hasRoute(allRoutes(), '/playground/data') ? { data: `${b}/playground/data` } : {}),
          ...(hasRoute(allRoutes(), '/api/apps') ? { apps: `${b}/api/apps` } : {}),
        },
      });
    }),
    route('GET', '/health', 'Liveness: the gateway process answers.', (_req, res) => {
      res.json({ status: 'ok' });
    }),
    route('GET', '/health/ready', 'Readiness: every backend service and store answers (503 naming what is down).', async (_req, res) => {
      if (deps.isDraining()) {
        res.status(503).json({ status: 'unavailable', down: ['gateway'], components: { gateway: { status: 'down', reason: 'shutting down' } } });
        return;
      }
      const readiness = await checkReadiness(deps.clients, deps.config.readinessTimeoutMs);
      res.setHeader('Cache-Control', 'no-store');
      res.status(readiness.ready ? 200 : 503).json({
        status: readiness.ready ? 'ok' : 'unavailable',
        ...(readiness.ready ? {} : { down: readiness.down }),
        components: readiness.components,
      });
    }),
    route('GET', '/playground', 'Map of every playground endpoint.', (req, res) => {
      const b = base(req);
      const endpoints = allRoutes()
        .filter((r) => r.path === '/playground' || r.path.startsWith('/playground/') || r.path.startsWith('/oauth'))
        .map((r) => ({
          methods: r.methods,
          path: r.path,
          url: `${b}${r.path}`,
          summary: r.summary,
          auth: r.auth ?? 'none',
        }));
      res.json({ name: SERVICE_NAME, version: API_VERSION, count: endpoints.length, endpoints });
    }),
  ];
}

function hasRoute(routes: RouteDef[], path: string): boolean {
  return routes.some((r) => r.path === path);
}
