import { z } from 'zod';
import { allPeerVariables, env, loadConfig, peerAddresses } from '@sandbox/runtime';

/**
 * The launcher reads the same variables as the services (it passes the whole
 * environment on to them unchanged) plus its own readiness deadline.
 */
const schema = z
  .object({
    PORT: env.port(8080),
    TLS_CERT_FILE: z.string().optional(),
    STARTUP_TIMEOUT_MS: env.milliseconds(30_000),
    ...allPeerVariables(),
  })
  .transform((v) => ({
    gatewayUrl: `${v.TLS_CERT_FILE ? 'https' : 'http'}://127.0.0.1:${v.PORT}`,
    startupTimeoutMs: v.STARTUP_TIMEOUT_MS,
    peers: peerAddresses(v),
  }));

export type LauncherConfig = z.output<typeof schema>;
export const loadLauncherConfig = (source: NodeJS.ProcessEnv = process.env): LauncherConfig => loadConfig(schema, source);
