import { AUTH_PLAYGROUND } from '../routes/auth-playground-routes';
import { DATA_ROOT } from '../routes/data-routes';

/**
 * What a route is for, from its row's path pattern: the one place that says
 * so. Usage is counted by it (observe/usage-counts.ts, the operators' usage
 * export) and the OpenAPI document groups operations by it (its tags).
 * - data: the datasets (/playground/data...)
 * - auth: the auth playground (/playground/auth/...)
 * - http: the rest of the playground, HTTP practice (/playground/<x>...)
 * - oauth2: the OAuth 2.0 endpoints and metadata (/oauth/..., /.well-known/...)
 * - oauth1: OAuth 1.0a's three legs (/oauth1/...)
 * - operators: the operators' API (/api/admin/...)
 * - portal: the rest of /api: accounts, sessions, apps
 * - system: the rest (/, /health*, /openapi.*, the /playground map)
 */
export type RouteFamily = 'data' | 'auth' | 'http' | 'oauth2' | 'oauth1' | 'operators' | 'portal' | 'system';

const under = (pattern: string, root: string) => pattern === root || pattern.startsWith(`${root}/`);

export function routeFamily(pattern: string): RouteFamily {
  if (under(pattern, DATA_ROOT)) return 'data';
  if (under(pattern, AUTH_PLAYGROUND)) return 'auth';
  if (pattern.startsWith('/playground/')) return 'http';
  if (under(pattern, '/oauth1')) return 'oauth1';
  if (under(pattern, '/oauth') || pattern.startsWith('/.well-known/')) return 'oauth2';
  if (under(pattern, '/api/admin')) return 'operators';
  if (pattern.startsWith('/api/')) return 'portal';
  return 'system';
}
