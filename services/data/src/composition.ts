import { data } from '@sandbox/contracts';
import { createLogger, createMetricsRegistry, startGrpcService, unaryHandlers, type RunningGrpcService } from '@sandbox/runtime';
import { pageTokenKeyOrRandom, type DataConfig } from './config';
import { dataHandlers } from './grpc/data-handlers';

export async function start(config: DataConfig): Promise<RunningGrpcService> {
  const logger = createLogger('data', config.logLevel);
  if (!config.pageTokenKey) logger.warn('PAGE_TOKEN_KEY is not set: cursors are signed with a per-process key and do not survive a restart');
  const implementation = unaryHandlers<data.DataServiceServer>(data.DataServiceService, dataHandlers(pageTokenKeyOrRandom(config)), logger);
  // Stateless: rows are computed from their index, so there is nothing to depend on.
  return startGrpcService({
    protoService: 'sandbox.data.v1.DataService',
    definition: data.DataServiceService,
    implementation,
    host: config.host,
    port: config.port,
    tls: config.grpcTls,
    healthPort: config.healthPort,
    logger,
    dependencies: [],
    shutdownGraceMs: config.shutdownGraceMs,
    metrics: { registry: createMetricsRegistry(), service: 'data', listen: config.metrics },
  });
}
