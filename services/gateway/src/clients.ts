import { data, identity, oauth, playground } from '@sandbox/contracts';
import { promiseClient, type CallMetrics, type PromiseClient } from '@sandbox/runtime';
import type { GatewayConfig } from './config';

/** The gateway's only way to reach the services: promise adapters with deadlines. */
export interface BackendClients {
  identity: PromiseClient<identity.IdentityServiceClient>;
  oauth: PromiseClient<oauth.OAuthServiceClient>;
  data: PromiseClient<data.DataServiceClient>;
  playground: PromiseClient<playground.PlaygroundServiceClient>;
}

/**
 * `metrics` counts the calls of the four service clients. (Readiness keeps
 * health connections of its own, one per replica: readiness.ts.)
 */
export function createBackendClients(config: GatewayConfig, metrics?: CallMetrics): BackendClients {
  const { peers, grpcDeadlineMs: deadline } = config;
  const security = { tls: config.grpcTls };
  const options = { metrics, transport: config.grpcTransport };
  return {
    identity: promiseClient(identity.IdentityServiceClient, identity.IdentityServiceService, peers.identity, 'identity', deadline, security, options),
    oauth: promiseClient(oauth.OAuthServiceClient, oauth.OAuthServiceService, peers.oauth, 'oauth', deadline, security, options),
    data: promiseClient(data.DataServiceClient, data.DataServiceService, peers.data, 'data', deadline, security, options),
    playground: promiseClient(
      playground.PlaygroundServiceClient,
      playground.PlaygroundServiceService,
      peers.playground,
      'playground',
      deadline,
      security,
      options,
    ),
  };
}

export function closeBackendClients(clients: BackendClients): void {
  for (const client of [clients.identity, clients.oauth, clients.data, clients.playground]) client.close();
}
