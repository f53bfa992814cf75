import { createLogger } from '@sandbox/runtime';
import { Authenticator } from '../auth/authenticate';
import { createAuthSchemes } from '../auth/schemes';
import type { BackendClients } from '../clients';
import { loadGatewayConfig } from '../config';
import type { GatewayDeps } from '../deps';
import type { Route } from '../http/route';
import { buildRoutes } from '../routes';
import { buildOpenApiDocument, servedAt, type OpenApiDocument } from './document';

/** What a table that is described, never served, answers for anything it would serve with: a failure that says so. */
const notServed = (what: string): never => {
  throw new Error(`${what}: this route table is described, not served (openapi/offline-document.ts)`);
};

/**
 * Clients for where nothing is served: building a scheme or a row calls no
 * service, so none is reached for; if one ever were, it would fail here,
 * loudly, rather than pass unnoticed.
 */
const noClients: BackendClients = {
  get identity() {
    return notServed('the identity client');
  },
  get oauth() {
    return notServed('the oauth client');
  },
  get data() {
    return notServed('the data client');
  },
  get playground() {
    return notServed('the playground client');
  },
};

/** The schemes' words, as the server's authenticator gives them (building a scheme calls no service). */
const inertAuthenticator = () => new Authenticator(createAuthSchemes(noClients, 0));

/**
 * The gateway's route rows exactly as the server builds them, without a
 * server: building a row reads nothing from deps but the words it is
 * described with, so the clients, the page cache and the batch runner are
 * never used. For what needs the table without running (the Postman build
 * step, tests).
 */
export function routeTable(authenticator = inertAuthenticator()): Route[] {
  const deps: GatewayDeps = {
    // Building a row calls no service, so no certificate is needed.
    config: loadGatewayConfig({ GRPC_TLS: 'off' }),
    logger: createLogger('gateway', 'silent'),
    clients: noClients,
    get pageCache() {
      return notServed('the page cache');
    },
    describeAuth: (accepted) => authenticator.describe(accepted),
    isDraining: () => false,
    runBatch: () => notServed('a batch'),
    screenFields: () => notServed('an upload'),
    apiDocument: () => notServed('the OpenAPI document'),
  };
  return buildRoutes(deps);
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
