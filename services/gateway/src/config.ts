import { z } from 'zod';
import { allPeerVariables, env, loadConfig, metricsListen, metricsVariables, peerAddresses } from '@sandbox/runtime';

const schema = z
  .object({
    PORT: env.port(8080),
    HOST: env.host('0.0.0.0'),
    /** Both set: the gateway serves HTTPS itself. */
    TLS_CERT_FILE: z.string().optional(),
    TLS_KEY_FILE: z.string().optional(),
    /** Behind a TLS-terminating proxy: honour X-Forwarded-Proto/Host/Prefix. */
    TRUST_PROXY: env.bool(false),
    /** Overrides everything else when building absolute URLs, e.g. https://sandbox.example.org/api */
    PUBLIC_BASE_URL: env.optionalUrl(['http', 'https']),
    BODY_LIMIT: z
      .string()
      .regex(/^\d+(b|kb|mb)$/i, 'must be a size such as 1mb or 512kb')
      .default('1mb'),
    GRPC_DEADLINE_MS: env.milliseconds(5000),
    READINESS_TIMEOUT_MS: env.milliseconds(1000),
    /** How long a credential check may be answered from memory; keeps rotation visible within 1 s. */
    CREDENTIAL_CACHE_MS: z.coerce.number().int().min(0).max(500).default(500),
    SHUTDOWN_GRACE_MS: env.milliseconds(10_000),
    SHUTDOWN_DELAY_MS: env.milliseconds(0),
    /** Memory for recently served pages of data (0 turns the cache off). */
    DATA_PAGE_CACHE_MB: z.coerce.number().min(0).max(4096).default(64),
    DATA_PAGE_CACHE_TTL_MS: env.milliseconds(60_000),
    /** Identity keeps this many log entries per app (same variable, same meaning): more are not sent. */
    REQUEST_LOG_CAP_PER_APP: z.coerce.number().int().min(1).max(100_000).default(1000),
    /** Access log lines per second; past it, one summary line a second (access-log.ts). */
    ACCESS_LOG_LINES_PER_SECOND: z.coerce.number().int().min(0).max(1_000_000).default(100),
    /** The identity provider trusted for portal sessions (identity's variable): its tokens are no production credential here. */
    EXTERNAL_IDP_ISSUER: env.optionalUrl(['http', 'https']),
    /** `npm run dev:portal`'s Vite server: /portal is proxied to it instead of served from dist/portal (development only). */
    PORTAL_DEV_SERVER_URL: env.optionalUrl(['http', 'https']),
    /** Testing aid: every answer appended to this file as a JSON line, for the contract tests (answers hold credentials: tests only). */
    RESPONSE_RECORD_FILE: z.string().optional(),
    LOG_LEVEL: env.logLevel(),
    /** The metrics listener (GET /metrics), on a port of its own; unset port: none. */
    ...metricsVariables(''),
    ...allPeerVariables(),
  })
  .refine((v) => Boolean(v.TLS_CERT_FILE) === Boolean(v.TLS_KEY_FILE), {
    message: 'TLS_CERT_FILE and TLS_KEY_FILE must be set together',
    path: ['TLS_CERT_FILE'],
  })
  .transform((v) => ({
    port: v.PORT,
    host: v.HOST,
    tls: v.TLS_CERT_FILE && v.TLS_KEY_FILE ? { certFile: v.TLS_CERT_FILE, keyFile: v.TLS_KEY_FILE } : undefined,
    trustProxy: v.TRUST_PROXY,
    publicBaseUrl: v.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    bodyLimitBytes: sizeInBytes(v.BODY_LIMIT),
    grpcDeadlineMs: v.GRPC_DEADLINE_MS,
    readinessTimeoutMs: v.READINESS_TIMEOUT_MS,
    credentialCacheMs: v.CREDENTIAL_CACHE_MS,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    /** How long a stopping gateway keeps accepting (draining, /health/serving 503) before it stops. */
    shutdownDelayMs: v.SHUTDOWN_DELAY_MS,
    requestLogCapPerApp: v.REQUEST_LOG_CAP_PER_APP,
    pageCache: { maxBytes: Math.round(v.DATA_PAGE_CACHE_MB * 1024 * 1024), ttlMs: v.DATA_PAGE_CACHE_TTL_MS },
    accessLogLinesPerSecond: v.ACCESS_LOG_LINES_PER_SECOND,
    portalDevServerUrl: v.PORTAL_DEV_SERVER_URL,
    responseRecordFile: v.RESPONSE_RECORD_FILE || undefined,
    logLevel: v.LOG_LEVEL,
    metrics: metricsListen(v, ''),
    trustedIssuers: [v.PUBLIC_BASE_URL, v.EXTERNAL_IDP_ISSUER].filter((url): url is string => Boolean(url)),
    peers: peerAddresses(v),
    grpcTransport: v.GRPC_TRANSPORT,
  }));

/** 512kb, 1mb... as bytes (the suffixes BODY_LIMIT accepts). */
function sizeInBytes(size: string): number {
  const [, amount, unit] = /^(\d+)(b|kb|mb)$/i.exec(size)!;
  return Number(amount) * { b: 1, kb: 1024, mb: 1024 * 1024 }[unit.toLowerCase() as 'b' | 'kb' | 'mb'];
}

export type GatewayConfig = z.output<typeof schema>;
export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(schema, source);
