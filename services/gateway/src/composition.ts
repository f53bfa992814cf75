import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@sandbox/runtime';
import { AccessLog } from './access-log';
import { CredentialVerifier } from './auth/credential-verifier';
import { RequestLogRecorder } from './auth/request-log-recorder';
import { closeBackendClients, createBackendClients } from './clients';
import type { GatewayConfig } from './config';
import type { GatewayDeps } from './deps';
import { recordFinishedRequests } from './finished-requests';
import { createHttpApp } from './http/app';
import { answerClientError } from './http/client-error';
import { createRequestListener } from './http/hot-routes';
import { buildRoutes } from './routes';

export interface RunningGateway {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function start(config: GatewayConfig): Promise<RunningGateway> {
  const logger = createLogger('gateway', config.logLevel);
  const clients = createBackendClients(config);
  let draining = false;
  const deps: GatewayDeps = {
    config,
    logger,
    clients,
    credentials: new CredentialVerifier(clients, config.credentialCacheMs),
    requestLogs: new RequestLogRecorder((entries) => clients.identity.recordRequests({ entries }), logger, config.requestLogCapPerApp),
    isDraining: () => draining,
  };
  const routes = buildRoutes(deps);
  const accessLog = new AccessLog(logger, config.accessLogLinesPerSecond);
  const onFinished = recordFinishedRequests(accessLog, deps.requestLogs);
  const app = createHttpApp({ routes, logger, onFinished, bodyLimit: config.bodyLimit, trustProxy: config.trustProxy });
  const listener = createRequestListener(app, routes, logger, onFinished);

  const server = config.tls
    ? https.createServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, listener)
    : http.createServer(listener);
  server.on('clientError', answerClientError);
  // Longer than the idle timeout of common load balancers, so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const scheme = config.tls ? 'https' : 'http';
  const url = `${scheme}://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  logger.info({ url }, 'gateway listening');

  return {
    port,
    url,
    async stop() {
      draining = true;
      // Stop accepting, let in-flight requests finish (idle keep-alive sockets close at once).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, config.shutdownGraceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      await deps.requestLogs.stop();
      accessLog.stop();
      closeBackendClients(clients);
      logger.info('stopped');
    },
  };
}
