import { z } from 'zod';
import { env, loadConfig, peerAddress, peerVariables } from '@sandbox/runtime';

const schema = z
  .object({
    OAUTH_GRPC_HOST: env.host('127.0.0.1'),
    OAUTH_GRPC_PORT: env.port(50052),
    /** Unset: ephemeral state in memory (the embedded default). */
    REDIS_URL: env.optionalUrl(['redis', 'rediss']),
    LOG_LEVEL: env.logLevel(),
    ...peerVariables('identity'),
  })
  .transform((v) => ({
    host: v.OAUTH_GRPC_HOST,
    port: v.OAUTH_GRPC_PORT,
    redisUrl: v.REDIS_URL,
    logLevel: v.LOG_LEVEL,
    identityAddress: peerAddress(v, 'identity'),
  }));

export type OAuthConfig = z.output<typeof schema>;
export const loadOAuthConfig = (source: NodeJS.ProcessEnv = process.env): OAuthConfig => loadConfig(schema, source);
