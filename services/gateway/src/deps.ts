import type { Logger } from '@sandbox/runtime';
import type { CredentialVerifier } from './auth/credential-verifier';
import type { BackendClients } from './clients';
import type { GatewayConfig } from './config';
import type { RequestLogRecorder } from './auth/request-log-recorder';

/** What route modules are given: the clients, config and shared gateway services. */
export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  clients: BackendClients;
  credentials: CredentialVerifier;
  requestLogs: RequestLogRecorder;
  /** True once SIGTERM arrived: readiness answers 503 while in-flight work drains. */
  isDraining(): boolean;
}
