import type { GatewayDeps } from '../deps';
import type { Route } from '../http/route';
import { authPlaygroundRoutes } from './auth-playground/auth-playground-routes';
import { dataRoutes } from './data/data-routes';
import { httpPracticeRoutes } from './http-practice/http-practice-routes';
import { oauth1Routes } from './oauth1/oauth1-routes';
import { oauthRoutes } from './oauth2/oauth-routes';
import { adminRoutes } from './operators/admin-routes';
import { classAdminRoutes } from './operators/class-routes';
import { portalRoutes } from './portal/portal-routes';
import { ssoRoutes } from './portal/sso-routes';
import { openApiRoutes } from './system/openapi-routes';
import { systemRoutes } from './system/system-routes';

/**
 * The gateway's whole route table, in matching order. Building it keeps
 * nothing and calls nothing: each row reads what it uses from deps when a
 * request is served (openapi/offline-document.ts builds it with no server).
 */
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
    ...classAdminRoutes(deps),
    ...ssoRoutes(deps),
    ...openApiRoutes(deps),
  );
  return table;
}
