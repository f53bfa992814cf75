import type { GatewayDeps } from '../deps';
import type { Route } from '../http/route';
import { dataRoutes } from './data-routes';
import { portalRoutes } from './portal-routes';
import { systemRoutes } from './system-routes';

/** The gateway's whole route table, in matching order. */
export function buildRoutes(deps: GatewayDeps): Route[] {
  const table: Route[] = [];
  table.push(...systemRoutes(deps, () => table), ...dataRoutes(deps), ...portalRoutes(deps));
  return table;
}
