import { createLogger } from '@sandbox/runtime';
import { Authenticator } from '../auth/authenticate';
import { createAuthSchemes } from '../auth/schemes';
import type { BackendClients } from '../clients';
import { loadGatewayConfig } from '../config';
import type { Route } from '../http/route';
import { buildRoutes } from '../routes';
import { buildOpenApiDocument, servedAt, type OpenApiDocument } from './document';

/** The schemes' words, as the server's authenticator gives them (building a scheme calls no service). */
const inertAuthenticator = () => new Authenticator(createAuthSchemes({} as BackendClients, 0));

/**
 * The gateway's route rows exactly as the server builds them, without a
 * server: building a row calls no service, so the clients are never used.
 * For what needs the table without running (the Postman build step, tests).
 */
export function routeTable(authenticator = inertAuthenticator()): Route[] {
  return buildRoutes({
    // Building a row calls no service, so no certificate is needed.
    config: loadGatewayConfig({ GRPC_TLS: 'off' }),
    logger: createLogger('gateway', 'silent'),
    clients: {} as BackendClients,
    describeAuth: (accepted) => authenticator.describe(accepted),
    isDraining: () => false,
    runBatch: () => Promise.reject(new Error('not served here')),
    screenFields: () => ({ write: () => undefined, end: () => undefined }),
  });
}

/**
 * The document the server would serve at `baseUrl`, built without one: the
 * one everybody gets (the docs page and the Postman collection are built
 * from it), or with `operator` the one an operator's session gets.
 */
export function offlineOpenApiDocument(baseUrl: string, options: { operator?: boolean } = {}): OpenApiDocument {
  const authenticator = inertAuthenticator();
  return servedAt(
    buildOpenApiDocument(routeTable(authenticator), (name) => authenticator.describe([name])[0]!.how, options),
    baseUrl,
  );
}
