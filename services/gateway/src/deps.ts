import type { Logger } from '@sandbox/runtime';
import type { SchemeName } from './auth/scheme';
import type { BackendClients } from './clients';
import type { GatewayConfig } from './config';

/** What route modules are given: the clients, config and shared gateway services. */
export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  clients: BackendClients;
  /** How each auth scheme is presented, in words (for the route map). */
  describeAuth(accepted: readonly SchemeName[]): { scheme: SchemeName; how: string }[];
  /** True once SIGTERM arrived: readiness answers 503 while in-flight work drains. */
  isDraining(): boolean;
}
