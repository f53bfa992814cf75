import type { BackendClients } from '../../clients';
import type { AuthScheme, SchemeName } from '../scheme';
import { apiKeySchemes } from './api-key';
import { appBearerScheme } from './app-bearer';
import { basicScheme } from './basic';
import { digestScheme } from './digest';
import { hmacScheme } from './hmac';
import { jwtScheme } from './jwt';
import { oauth1SignatureScheme } from './oauth1-signature';
import { oauth2TokenScheme } from './oauth2-token';
import { portalSessionScheme } from './portal-session';

/** Every scheme the gateway knows, one object each; routes name the ones they accept. */
export function createAuthSchemes(clients: BackendClients, credentialCacheMs: number): Record<SchemeName, AuthScheme> {
  const [apiKeyHeader, apiKeyQuery] = apiKeySchemes(clients, credentialCacheMs);
  return {
    api_key_header: apiKeyHeader,
    api_key_query: apiKeyQuery,
    bearer: appBearerScheme(clients, credentialCacheMs),
    oauth2: oauth2TokenScheme(clients, credentialCacheMs),
    oauth1: oauth1SignatureScheme(clients),
    jwt: jwtScheme(clients, credentialCacheMs),
    hmac: hmacScheme(clients),
    digest: digestScheme(clients),
    basic: basicScheme(clients, credentialCacheMs),
    portal_session: portalSessionScheme(clients),
  };
}
