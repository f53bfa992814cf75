import { playground } from '@sandbox/contracts';
import { createLogger, createMetricsRegistry, startGrpcService, unaryHandlers, type RunningGrpcService } from '@sandbox/runtime';
import type { PlaygroundConfig } from './config';
import type { Sleep } from './domain/delay';
import { playgroundHandlers } from './grpc/playground-handlers';
import { timerSleep } from './grpc/sleep';
import { uploadHandler } from './grpc/upload-handler';

export interface PlaygroundOptions {
  /** How the response and timeout delays wait (tests watch every wait start and stop). */
  sleep?: Sleep;
}

export async function start(config: PlaygroundConfig, options: PlaygroundOptions = {}): Promise<RunningGrpcService> {
  const logger = createLogger('playground', config.logLevel);
  const unary = unaryHandlers<playground.PlaygroundServiceServer>(playground.PlaygroundServiceService, playgroundHandlers(options.sleep ?? timerSleep), logger);
  // unaryHandlers serves unary calls only; the client-streaming Upload keeps the same error boundary in its own handler.
  const implementation: playground.PlaygroundServiceServer = { ...unary, upload: uploadHandler(logger) };
  // Stateless: every answer is computed from the request alone, so there is nothing to depend on.
  return startGrpcService({
    protoService: 'sandbox.playground.v1.PlaygroundService',
    definition: playground.PlaygroundServiceService,
    implementation,
    host: config.host,
    port: config.port,
    tls: config.grpcTls,
    healthPort: config.healthPort,
    logger,
    dependencies: [],
    shutdownGraceMs: config.shutdownGraceMs,
    metrics: { registry: createMetricsRegistry(), service: 'playground', listen: config.metrics },
  });
}
