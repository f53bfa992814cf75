import { data } from '@sandbox/contracts';
import { createLogger, startGrpcService, unaryHandlers, type RunningGrpcService } from '@sandbox/runtime';
import { pageTokenKeyOrRandom, type DataConfig } from './config';

export async function start(config: DataConfig): Promise<RunningGrpcService> {
  const logger = createLogger('data', config.logLevel);
  if (!config.pageTokenKey) logger.warn('PAGE_TOKEN_KEY is not set: cursors are signed with a per-process key and do not survive a restart');
  void pageTokenKeyOrRandom(config);
  const implementation = unaryHandlers<data.DataServiceServer>(data.DataServiceService, {}, logger);
  return startGrpcService({
    protoService: 'sandbox.data.v1.DataService',
    definition: data.DataServiceService,
    implementation,
    host: config.host,
    port: config.port,
    logger,
    dependencies: [],
  });
}
