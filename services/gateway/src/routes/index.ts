import type { GatewayDeps } from '../deps';
import type { RouteDef } from '../http/route-table';
import { dataRoutes } from './data-routes';
import { portalRoutes } from './portal-routes';
import { systemRoutes } from './system-routes';

/** The gateway's whole route table, in registration order. */
export function buildRoutes(deps: GatewayDeps): RouteDef[] {
  const table: RouteDef[] = [];
  table.push(...systemRoutes(deps, () => table), ...dataRoutes(deps), ...portalRoutes(deps));
  return table;
}
