import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import {
  env,
  loadConfig,
  metricsListen,
  metricsVariables,
  peerAddress,
  peerVariables,
  replicaVariables,
  requireReplicaNeeds,
  grpcTls,
  grpcTlsVariables,
  requireTlsDirectory,
} from '@sandbox/runtime';
import { ACCESS_TOKEN_ALGS } from './domain/signing-key';

/** A PEM private key, as a file's contents or with its newlines written as \n (one line in an env file). */
const pemPrivateKey = () =>
  z
    .string()
    .transform((value) => value.replace(/\\n/g, '\n'))
    .refine(
      (pem) => {
        try {
          const key = createPrivateKey(pem);
          return key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048;
        } catch {
          return false;
        }
      },
      { message: 'must be a PEM RSA private key of at least 2048 bits (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048)' },
    )
    .optional();

const schema = z
  .object({
    OAUTH_GRPC_HOST: env.host('127.0.0.1'),
    OAUTH_GRPC_PORT: env.port(50052),
    /** Unset: ephemeral state in memory (the embedded default). */
    REDIS_URL: env.optionalUrl(['redis', 'rediss']),
    /**
     * Signs the playground's RS256 JWTs (and access tokens with
     * OAUTH_ACCESS_TOKEN_ALG=RS256); the other keys are derived from it. Every
     * oauth replica needs the same one; unset, each process generates its own
     * (tokens then do not survive a restart, and a second replica refuses
     * the first one's).
     */
    JWT_SIGNING_KEY: pemPrivateKey(),
    /**
     * What OAuth 2.0 access tokens are signed with: ES256 (the default; its
     * key is derived from JWT_SIGNING_KEY), EdDSA (Ed25519, derived likewise)
     * or RS256 (JWT_SIGNING_KEY itself, as before, for clients that need it).
     */
    OAUTH_ACCESS_TOKEN_ALG: z.enum(ACCESS_TOKEN_ALGS).default('ES256'),
    /** Lifetime of OAuth 2.0 access tokens. */
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
    /** Lifetime of refresh tokens (each use rotates it and restarts this). */
    REFRESH_TOKEN_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(86_400),
    /** Without Redis: the most codes, tokens, nonces and replay memories held at once (each a few hundred bytes). */
    OAUTH_MEMORY_MAX_ENTRIES: z.coerce.number().int().min(1000).max(10_000_000).default(250_000),
    LOG_LEVEL: env.logLevel(),
    /** How long calls in flight may finish after SIGTERM before they are cut. */
    SHUTDOWN_GRACE_MS: env.milliseconds(10_000),
    ...grpcTlsVariables(),
    /** A port serving only grpc.health.v1 without TLS, for probes that cannot present a certificate (Kubernetes'); unset: none. */
    OAUTH_HEALTH_PORT: env.optionalPort(),
    ...metricsVariables('OAUTH_'),
    ...peerVariables('identity'),
    ...replicaVariables('oauth'),
  })
  .superRefine(requireReplicaNeeds('oauth'))
  .superRefine(requireTlsDirectory)
  .transform((v) => ({
    grpcTls: grpcTls(v, 'oauth'),
    healthPort: v.OAUTH_HEALTH_PORT,
    host: v.OAUTH_GRPC_HOST,
    port: v.OAUTH_GRPC_PORT,
    redisUrl: v.REDIS_URL,
    signingKeyPem: v.JWT_SIGNING_KEY,
    accessTokenAlg: v.OAUTH_ACCESS_TOKEN_ALG,
    accessTokenTtlSeconds: v.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: v.REFRESH_TOKEN_TTL_SECONDS,
    memoryMaxEntries: v.OAUTH_MEMORY_MAX_ENTRIES,
    logLevel: v.LOG_LEVEL,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    metrics: metricsListen(v, 'OAUTH_'),
    identityAddress: peerAddress(v, 'identity'),
    grpcTransport: v.GRPC_TRANSPORT,
  }));

export type OAuthConfig = z.output<typeof schema>;
export const loadOAuthConfig = (source: NodeJS.ProcessEnv = process.env): OAuthConfig => loadConfig(schema, source);
