import type { Credential, SchemeName } from '../auth/scheme';
import type { GatewayDeps } from '../deps';
import { json } from '../http/reply';
import { route, type Route } from '../http/route';

/** What every auth-playground endpoint answers once the style was right: the app, the style and the scopes. */
function authenticatedReply(credential: Credential | undefined) {
  if (credential?.kind !== 'app') throw new Error('auth playground routes accept app schemes only');
  const { principal, scheme } = credential;
  return json({ authenticated: true, style: scheme, app: { id: principal.id, appId: principal.appId }, scopes: principal.scopes });
}

/** /playground/auth/<style>: one endpoint per style, each accepting that style only. */
export function authPlaygroundRoutes(_deps: GatewayDeps): Route[] {
  const endpoint = (style: SchemeName, path: string, summary: string) =>
    route({ methods: 'GET', path: `/playground/auth/${path}`, summary, auth: [style], noStore: true, handler: (ctx) => authenticatedReply(ctx.credential) });
  return [
    endpoint('oauth2', 'oauth2', 'Authenticate with an OAuth 2.0 access token from POST /oauth/token (Authorization: Bearer).'),
    endpoint('oauth1', 'oauth1', 'Authenticate with an OAuth 1.0a signature made with the access token of the three legs.'),
  ];
}
