import { z } from 'zod';
import {
  allPeerVariables,
  env,
  GRPC_TLS_SETTINGS,
  grpcPortVariable,
  loadConfig,
  peerAddresses,
  replicasVariable,
  SERVICE_NAMES,
  type ServiceName,
} from '@sandbox/runtime';
import { PROCESS_NAMES, type ProcessName } from './replicas';

const replicaCount = () => z.coerce.number().int().min(1, 'must be 1 to 8').max(8, 'must be 1 to 8');

/**
 * The launcher reads the same variables as the services (it passes the whole
 * environment on to them) plus its own: the readiness deadline, and how many
 * processes of each to run (REPLICAS, or `<NAME>_REPLICAS` for one of them).
 */
const schema = z
  .object({
    PORT: env.port(8080),
    HOST: env.host('0.0.0.0'),
    TLS_CERT_FILE: z.string().optional(),
    STARTUP_TIMEOUT_MS: env.milliseconds(30_000),
    SHUTDOWN_GRACE_MS: env.milliseconds(10_000),
    REPLICAS: replicaCount().default(1),
    ...Object.fromEntries(PROCESS_NAMES.map((name) => [replicasVariable(name), replicaCount().optional()])),
    ...Object.fromEntries(SERVICE_NAMES.map((name) => [`${name.toUpperCase()}_GRPC_HOST`, env.host('127.0.0.1')])),
    ...allPeerVariables(),
    // The launcher makes every process's certificates itself (tls.ts); GRPC_TLS=off skips them. The
    // migration settings (accept-tls, send-tls) are passed on to every process as they are.
    GRPC_TLS: z.enum(GRPC_TLS_SETTINGS, { message: `must be ${GRPC_TLS_SETTINGS.join(', ')}` }).default('on'),
    GRPC_TLS_REFRESH_MS: z.coerce.number().int().min(100).default(10_000),
    /** Where to write this run's certificates (kept; a process started alone finds its own there); else a temporary directory, removed at exit. */
    GRPC_TLS_RUN_DIR: z.string().optional(),
  })
  .transform((v) => {
    const vars = v as Record<string, unknown>;
    return {
      scheme: v.TLS_CERT_FILE ? 'https' : 'http',
      gatewayPort: v.PORT,
      gatewayHost: v.HOST,
      startupTimeoutMs: v.STARTUP_TIMEOUT_MS,
      /** How long a process stopped for a rolling restart may take to exit before it is killed: its own grace and a margin. */
      stopTimeoutMs: v.SHUTDOWN_GRACE_MS + 5_000,
      replicas: Object.fromEntries(PROCESS_NAMES.map((name) => [name, (vars[replicasVariable(name)] as number | undefined) ?? v.REPLICAS])) as Record<
        ProcessName,
        number
      >,
      grpcPorts: Object.fromEntries(SERVICE_NAMES.map((name) => [name, vars[grpcPortVariable(name)] as number])) as Record<ServiceName, number>,
      grpcHosts: Object.fromEntries(SERVICE_NAMES.map((name) => [name, vars[`${name.toUpperCase()}_GRPC_HOST`] as string])) as Record<ServiceName, string>,
      peers: peerAddresses(v),
      grpcTls: v.GRPC_TLS,
      grpcTlsRefreshMs: v.GRPC_TLS_REFRESH_MS,
      grpcTlsRunDir: v.GRPC_TLS_RUN_DIR || undefined,
    };
  });

export type LauncherConfig = z.output<typeof schema>;
export const loadLauncherConfig = (source: NodeJS.ProcessEnv = process.env): LauncherConfig => loadConfig(schema, source);
