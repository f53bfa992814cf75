import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import {
  decodeKey,
  env,
  loadConfig,
  metricsListen,
  metricsVariables,
  replicaVariables,
  requireReplicaNeeds,
  grpcTls,
  grpcTlsVariables,
  requireTlsDirectory,
} from '@sandbox/runtime';

const schema = z
  .object({
    DATA_GRPC_HOST: env.host('127.0.0.1'),
    DATA_GRPC_PORT: env.port(50053),
    /**
     * Signs cursors and page tokens. Every data replica must share it, or a
     * token issued by one is refused by the next; unset, each process makes
     * its own (fine for one process, the embedded default).
     */
    PAGE_TOKEN_KEY: env.optionalKey(),
    LOG_LEVEL: env.logLevel(),
    /** How long calls in flight may finish after SIGTERM before they are cut. */
    SHUTDOWN_GRACE_MS: env.milliseconds(10_000),
    ...grpcTlsVariables(),
    /** A port serving only grpc.health.v1 without TLS, for probes that cannot present a certificate (Kubernetes'); unset: none. */
    DATA_HEALTH_PORT: env.optionalPort(),
    ...metricsVariables('DATA_'),
    ...replicaVariables('data'),
  })
  .superRefine(requireReplicaNeeds('data'))
  .superRefine(requireTlsDirectory)
  .transform((v) => ({
    grpcTls: grpcTls(v, 'data'),
    healthPort: v.DATA_HEALTH_PORT,
    host: v.DATA_GRPC_HOST,
    port: v.DATA_GRPC_PORT,
    pageTokenKey: v.PAGE_TOKEN_KEY ? decodeKey(v.PAGE_TOKEN_KEY) : undefined,
    logLevel: v.LOG_LEVEL,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    metrics: metricsListen(v, 'DATA_'),
  }));

export type DataConfig = z.output<typeof schema>;
export const loadDataConfig = (source: NodeJS.ProcessEnv = process.env): DataConfig => loadConfig(schema, source);

/**
 * The configured key, or a random one for a single embedded process; a
 * KeyObject, which node's createHmac takes about 12 µs faster than a Buffer
 * (bench/secret-keys.mjs): every page with a cursor or token is signed.
 */
export const pageTokenKeyOrRandom = (config: DataConfig): KeyObject => createSecretKey(config.pageTokenKey ?? randomBytes(32));
