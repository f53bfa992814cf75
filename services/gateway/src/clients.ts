import { data, health, identity, oauth, playground } from '@sandbox/contracts';
import { promiseClient, type PromiseClient, type ServiceName } from '@sandbox/runtime';
import type { GatewayConfig } from './config';

/** The gateway's only way to reach the services: promise adapters with deadlines. */
export interface BackendClients {
  identity: PromiseClient<identity.IdentityServiceClient>;
  oauth: PromiseClient<oauth.OAuthServiceClient>;
  data: PromiseClient<data.DataServiceClient>;
  playground: PromiseClient<playground.PlaygroundServiceClient>;
  health: Record<ServiceName, PromiseClient<health.HealthClient>>;
}

export function createBackendClients(config: GatewayConfig): BackendClients {
  const { peers, grpcDeadlineMs: deadline } = config;
  const healthClient = (name: ServiceName) => promiseClient(health.HealthClient, health.HealthService, peers[name], name, deadline);
  return {
    identity: promiseClient(identity.IdentityServiceClient, identity.IdentityServiceService, peers.identity, 'identity', deadline),
    oauth: promiseClient(oauth.OAuthServiceClient, oauth.OAuthServiceService, peers.oauth, 'oauth', deadline),
    data: promiseClient(data.DataServiceClient, data.DataServiceService, peers.data, 'data', deadline),
    playground: promiseClient(playground.PlaygroundServiceClient, playground.PlaygroundServiceService, peers.playground, 'playground', deadline),
    health: {
      identity: healthClient('identity'),
      oauth: healthClient('oauth'),
      data: healthClient('data'),
      playground: healthClient('playground'),
    },
  };
}

export function closeBackendClients(clients: BackendClients): void {
  for (const client of [clients.identity, clients.oauth, clients.data, clients.playground, ...Object.values(clients.health)]) client.close();
}
