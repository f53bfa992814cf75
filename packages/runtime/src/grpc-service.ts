import type { sendUnaryData, ServerErrorResponse, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { PeerCertificate } from 'node:tls';
import { callers, health, transport } from '@sandbox/contracts';
import { CallStreamServer } from './call-stream-server';
import type { MetricsListen } from './config';
import { DependencyMonitor, type Dependency } from './dependency-monitor';
import { AppError, GrpcStatus, toServiceError } from './errors';
import { bindGrpcServer, CALL_STREAM_MAX_AGE_MS, createGrpcServer, forceShutdownGrpcServer, shutdownGrpcServer } from './grpc-server';
import { callSecurity, grpcTlsSetting, takesBothProtocols, type GrpcTls } from './grpc-tls';
import { HealthRegistry, ServingStatus } from './health';
import type { Logger } from './logger';
import { grpcMethodName, grpcServerMetrics, monotonicMs, startMetricsServer, type CallMetrics, type Registry } from './metrics';
import { PlaintextCalls } from './plaintext-calls';

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
  /** Mutual TLS on the port (and the callers table checked on every call), or off (local debugging only), or both while migrating (grpc-tls.ts). */
  tls: GrpcTls;
  /**
   * A second port serving only grpc.health.v1, without TLS: for Kubernetes'
   * gRPC probes, which cannot present a certificate. It answers nothing else.
   */
  healthPort?: number;
  logger: Logger;
  dependencies: Dependency[];
  /** Closes stores once no call is in flight any more. */
  close?: () => Promise<void>;
  shutdownGraceMs?: number;
  dependencyCheckIntervalMs?: number;
  /**
   * The process's registry: the service's calls are counted there
   * (sandbox_grpc_server_*, under `service`, its short name; health checks
   * are not), and served on `listen` when given, from before the gRPC port
   * is bound until after it is closed.
   */
  metrics?: { registry: Registry; service: string; listen?: MetricsListen };
  /** The call streams' age and how many calls one may have in flight before the server stops reading it (defaults suit production; tests shorten the age). */
  callStreams?: { maxStreamAgeMs?: number; maxInFlightPerStream?: number };
}

export interface RunningGrpcService {
  port: number;
  /** The plaintext health-only port, when one was asked for. */
  healthPort?: number;
  /** The metrics listener's port, when one was asked for. */
  metricsPort?: number;
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
  const { metrics } = options;
  const metricsServer = metrics?.listen ? await startMetricsServer(metrics.registry, metrics.listen, logger) : undefined;
  const server = createGrpcServer();
  server.addService(health.HealthService, registry.implementation());
  const counted = metrics
    ? instrumentImplementation(options.definition, options.implementation, grpcServerMetrics(metrics.registry), metrics.service)
    : options.implementation;
  const plaintext = takesBothProtocols(options.tls) ? new PlaintextCalls(logger, metrics) : undefined;
  const implementation = options.tls.mode === 'mtls' || plaintext ? authorizeImplementation(options.definition, counted, logger, plaintext) : counted;
  server.addService(options.definition, implementation);
  // The same handlers, reachable as calls on a stream (the cheap hop); plain unary calls stay accepted.
  const callStreams = new CallStreamServer({
    logger,
    maxStreamAgeMs: options.callStreams?.maxStreamAgeMs ?? CALL_STREAM_MAX_AGE_MS,
    maxInFlightPerStream: options.callStreams?.maxInFlightPerStream ?? 512,
  });
  callStreams.add(options.definition, implementation);
  server.addService(transport.CallStreamServiceService, callStreams.implementation());
  let healthServer: ReturnType<typeof createGrpcServer> | undefined;
  let port: number;
  let healthPort: number | undefined;
  try {
    port = await bindGrpcServer(server, options.host, options.port, options.tls);
    if (options.healthPort !== undefined) {
      healthServer = createGrpcServer();
      healthServer.addService(health.HealthService, registry.implementation());
      healthPort = await bindGrpcServer(healthServer, options.host, options.healthPort, { mode: 'off' });
    }
  } catch (error) {
    forceShutdownGrpcServer(server);
    await metricsServer?.stop();
    throw error;
  }
  if (options.tls.mode === 'off' && !plaintext) {
    logger.warn('GRPC_TLS=off: this port takes calls without TLS, from anyone who can reach it; every RPC answers every caller. For local debugging only.');
  } else if (plaintext) {
    logger.warn(
      `GRPC_TLS=${grpcTlsSetting(options.tls)}: this port takes calls in plaintext too, from anyone who can reach it, and answers them as GRPC_TLS=off does; only calls with a certificate are checked against the callers table. For moving a release to mutual TLS (or back) only: take the next step once sandbox_grpc_server_plaintext_calls_total stops growing.`,
    );
  }
  await monitor.start();
  registry.set(LIVENESS, ServingStatus.SERVING);
  refreshOverall();
  logger.info({ port, healthPort, tls: grpcTlsSetting(options.tls), dependencies: dependencies.map((d) => d.name) }, 'serving');

  return {
    port,
    healthPort,
    metricsPort: metricsServer?.port,
    health: registry,
    async stop() {
      if (stopping) return;
      stopping = true;
      refreshOverall();
      registry.set(LIVENESS, ServingStatus.NOT_SERVING);
      monitor.stop();
      registry.close();
      // Callers move new calls to other replicas at once; the streams end as their calls are answered.
      callStreams.drain();
      await Promise.all([shutdownGrpcServer(server, options.shutdownGraceMs ?? 10_000), healthServer && shutdownGrpcServer(healthServer, 1000)]);
      await options.close?.();
      await metricsServer?.stop();
      logger.info('stopped');
    },
  };
}

type Handler = (
  call: { once(event: 'cancelled', listener: () => void): unknown; getAuthContext(): { transportSecurityType?: string; sslPeerCertificate?: PeerCertificate } },
  callback: sendUnaryData<unknown>,
) => void;

/**
 * Every call checked against the callers table (packages/contracts callers.ts)
 * by the identity in the caller's certificate, over both transports (a call
 * stream's calls carry the stream's certificate). A refusal names neither the
 * table nor who may call: only that this caller may not. While the port takes
 * plaintext too (`plaintext` given: GRPC_TLS=accept-tls or send-tls), a call
 * that came without TLS has no identity to check: it is served, as the
 * release served every call before mutual TLS, and recorded. A call over TLS
 * always has a certificate (the handshake requires one) and is checked.
 */
function authorizeImplementation(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
  logger: Logger,
  plaintext?: PlaintextCalls,
): UntypedServiceImplementation {
  const authorized: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const path = definition[name]?.path;
    const allowed = path ? callers.CALLERS_BY_PATH.get(path) : undefined;
    const serve = handler as unknown as Handler;
    const wrapped: Handler = (call, callback) => {
      // Read once per connection, not per call: grpc-js rebuilds the certificate's object on every unary call (grpc-tls.ts).
      const { tls, caller } = callSecurity(call);
      if (plaintext && !tls) {
        plaintext.record(path ?? name);
        return serve(call, callback);
      }
      if (caller && allowed?.includes(caller as callers.Caller)) return serve(call, callback);
      logger.warn({ rpc: path, caller: caller ?? null }, 'call refused: the caller may not call this RPC');
      callback(
        toServiceError(
          new AppError(
            GrpcStatus.PERMISSION_DENIED,
            'caller_not_allowed',
            `This caller (${caller ?? 'unidentified'}) may not call ${grpcMethodName(path ?? name)}.`,
          ),
        ),
      );
    };
    authorized[name] = wrapped as unknown as UntypedServiceImplementation[string];
  }
  return authorized;
}

/**
 * The service's handlers, each call counted and timed by method and status
 * code: the one place every unary and client-streaming handler passes
 * through (the health service is added beside it, so probes are not
 * counted). The code is the handler's answer, or CANCELLED when the caller
 * went away (or its deadline passed) before one.
 */
function instrumentImplementation(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
  metrics: CallMetrics,
  service: string,
): UntypedServiceImplementation {
  const instrumented: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const method = definition[name];
    // Server-streaming methods answer without a callback; this project has none, so they pass through uncounted.
    if (!method || method.responseStream) {
      instrumented[name] = handler;
      continue;
    }
    const record = metrics.recorder(service, grpcMethodName(method.path));
    const serve = handler as unknown as Handler;
    const wrapped: Handler = (call, callback) => {
      const started = monotonicMs();
      record.started();
      let recorded = false;
      const finish = (code: number) => {
        if (recorded) return;
        recorded = true;
        record.finished(code, (monotonicMs() - started) / 1000);
      };
      call.once('cancelled', () => finish(GrpcStatus.CANCELLED));
      try {
        serve(call, (error, value, trailer, flags) => {
          finish(error ? ((error as ServerErrorResponse).code ?? GrpcStatus.UNKNOWN) : GrpcStatus.OK);
          callback(error, value, trailer, flags);
        });
      } catch (error) {
        // grpc-js answers UNKNOWN for a handler that throws.
        finish(GrpcStatus.UNKNOWN);
        throw error;
      }
    };
    instrumented[name] = wrapped as unknown as UntypedServiceImplementation[string];
  }
  return instrumented;
}
