/**
 * What a route is for: each row declares it (route.ts `family`), and the
 * module that builds a family's rows says it once for all of them
 * (routes/<family>/). Usage is counted by it (observe/usage-counts.ts, the
 * operators' usage export) and the OpenAPI document groups operations by it
 * (its tags).
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
