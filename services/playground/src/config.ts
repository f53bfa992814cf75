import { z } from 'zod';
import { env, loadConfig, metricsListen, metricsVariables, grpcTls, grpcTlsVariables, requireTlsDirectory } from '@sandbox/runtime';

const schema = z
  .object({
    PLAYGROUND_GRPC_HOST: env.host('127.0.0.1'),
    PLAYGROUND_GRPC_PORT: env.port(50054),
    LOG_LEVEL: env.logLevel(),
    /** How long calls in flight (a /playground/timeout wait lasts up to 60 s) may finish after SIGTERM before they are cut. */
    SHUTDOWN_GRACE_MS: env.milliseconds(10_000),
    ...grpcTlsVariables(),
    /** A port serving only grpc.health.v1 without TLS, for probes that cannot present a certificate (Kubernetes'); unset: none. */
    PLAYGROUND_HEALTH_PORT: env.optionalPort(),
    ...metricsVariables('PLAYGROUND_'),
  })
  .superRefine(requireTlsDirectory)
  .transform((v) => ({
    grpcTls: grpcTls(v, 'playground'),
    healthPort: v.PLAYGROUND_HEALTH_PORT,
    host: v.PLAYGROUND_GRPC_HOST,
    port: v.PLAYGROUND_GRPC_PORT,
    logLevel: v.LOG_LEVEL,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    metrics: metricsListen(v, 'PLAYGROUND_'),
  }));

export type PlaygroundConfig = z.output<typeof schema>;
export const loadPlaygroundConfig = (source: NodeJS.ProcessEnv = process.env): PlaygroundConfig => loadConfig(schema, source);
