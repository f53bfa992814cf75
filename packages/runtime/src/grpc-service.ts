import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { health } from '@sandbox/contracts';
import { DependencyMonitor, type Dependency } from './dependency-monitor';
import { bindGrpcServer, createGrpcServer, shutdownGrpcServer } from './grpc-server';
import { HealthRegistry, ServingStatus } from './health';
import type { Logger } from './logger';

/**
 * Health name for liveness probes: SERVING from bind until shutdown whatever
 * the stores do, so an outage of MongoDB or Redis makes pods unready ("")
 * without getting them restarted.
 */
export const LIVENESS = 'liveness';

export interface GrpcServiceOptions {
  /** Full proto service name, e.g. "sandbox.data.v1.DataService". */
  protoService: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
  host: string;
  port: number;
  logger: Logger;
  dependencies: Dependency[];
  /** Closes stores once no call is in flight any more. */
  close?: () => Promise<void>;
  shutdownGraceMs?: number;
  dependencyCheckIntervalMs?: number;
}

export interface RunningGrpcService {
  port: number;
  health: HealthRegistry;
  stop(): Promise<void>;
}

/**
 * Every service starts the same way: health NOT_SERVING, bind, check the
 * dependencies, then SERVING; and stops the same way: NOT_SERVING first (so
 * probes and the gateway stop sending work), finish what is in flight, close.
 */
export async function startGrpcService(options: GrpcServiceOptions): Promise<RunningGrpcService> {
  const { logger, protoService, dependencies } = options;
  const registry = new HealthRegistry();
  const overallNames = ['', protoService];
  let stopping = false;

  const refreshOverall = () => {
    const status = !stopping && monitor.allUp() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    for (const name of overallNames) registry.set(name, status);
  };
  const monitor = new DependencyMonitor(
    dependencies,
    (name, up) => {
      registry.set(name, up ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
      refreshOverall();
    },
    logger,
    options.dependencyCheckIntervalMs,
  );

  for (const name of [...overallNames, LIVENESS, ...dependencies.map((d) => d.name)]) registry.set(name, ServingStatus.NOT_SERVING);
  const server = createGrpcServer();
  server.addService(health.HealthService, registry.implementation());
  server.addService(options.definition, options.implementation);
  const port = await bindGrpcServer(server, options.host, options.port);
  await monitor.start();
  registry.set(LIVENESS, ServingStatus.SERVING);
  refreshOverall();
  logger.info({ port, dependencies: dependencies.map((d) => d.name) }, 'serving');

  return {
    port,
    health: registry,
    async stop() {
      if (stopping) return;
      stopping = true;
      refreshOverall();
      registry.set(LIVENESS, ServingStatus.NOT_SERVING);
      monitor.stop();
      registry.close();
      await shutdownGrpcServer(server, options.shutdownGraceMs ?? 10_000);
      await options.close?.();
      logger.info('stopped');
    },
  };
}
