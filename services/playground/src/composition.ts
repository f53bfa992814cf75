import { playground } from '@sandbox/contracts';
import { createLogger, startGrpcService, unaryHandlers, type RunningGrpcService } from '@sandbox/runtime';
import type { PlaygroundConfig } from './config';

export async function start(config: PlaygroundConfig): Promise<RunningGrpcService> {
  const logger = createLogger('playground', config.logLevel);
  // The HTTP-practice RPCs arrive with their issue; until then they answer UNIMPLEMENTED.
  const implementation = unaryHandlers<playground.PlaygroundServiceServer>(playground.PlaygroundServiceService, {}, logger);
  return startGrpcService({
    protoService: 'sandbox.playground.v1.PlaygroundService',
    definition: playground.PlaygroundServiceService,
    implementation,
    host: config.host,
    port: config.port,
    logger,
    dependencies: [],
  });
}
