import type { GatewayDeps } from '../deps';
import type { Route } from '../http/route';
import { adminRoutes } from './admin-routes';
import { authPlaygroundRoutes } from './auth-playground-routes';
import { dataRoutes } from './data-routes';
import { httpPracticeRoutes } from './http-practice-routes';
import { oauth1Routes } from './oauth1-routes';
import { oauthRoutes } from './oauth-routes';
import { openApiRoutes } from './openapi-routes';
import { portalRoutes } from './portal-routes';
import { ssoRoutes } from './sso-routes';
import { systemRoutes } from './system-routes';

/** The gateway's whole route table, in matching order. */
export function buildRoutes(deps: GatewayDeps): Route[] {
  const table: Route[] = [];
  table.push(
    ...systemRoutes(deps, () => table),
    ...dataRoutes(deps),
    ...authPlaygroundRoutes(deps),
    ...httpPracticeRoutes(deps),
    ...oauthRoutes(deps),
    ...oauth1Routes(deps),
    ...portalRoutes(deps),
    ...adminRoutes(deps),
    ...ssoRoutes(deps),
    ...openApiRoutes(deps, () => table),
  );
  return table;
}
