import { z } from 'zod';
import {
  allPeerVariables,
  env,
  loadConfig,
  metricsListen,
  metricsVariables,
  peerAddresses,
  replicaCount,
  grpcTls,
  grpcTlsVariables,
  requireTlsDirectory,
} from '@sandbox/runtime';
import type { BucketPolicy } from './fair-share/token-bucket';
import { checkSso, ssoSettings, ssoVariables } from './sso/sso-config';

/** A rate in requests a second (decimals allowed: 0.1 is one every 10 s); unset, empty or 0: off. */
const rate = () => z.coerce.number().min(0).max(1_000_000).default(0);
/** A burst, or a cap on requests at once: a whole number; unset, empty or 0: off. */
const count = () => z.coerce.number().int().min(0).max(10_000_000).default(0);
/** An App ID as identity issues them (app_ and 22 characters); a typo here would exempt nobody. */
export const APP_ID = /^app_[A-Za-z0-9_-]{22}$/;
/** RATE_LIMIT_APP_OVERRIDES: `app_x=500:1000,app_y=5:10` (requests a second : burst). */
const OVERRIDE = /^(app_[A-Za-z0-9_-]{22})=(\d+(?:\.\d+)?):(\d+)$/;
const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
/** REPLICAS and GATEWAY_REPLICAS, as the launcher sets them: only read to refuse a shared budget counted per replica. */
const replicas = () =>
  z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .or(z.literal('').transform(() => undefined));

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
    /** Single sign-on through that provider (sso/sso-config.ts): SSO_CLIENT_ID turns it on. */
    ...ssoVariables(),
    /** `npm run dev:portal`'s Vite server: /portal is proxied to it instead of served from dist/portal (development only). */
    PORTAL_DEV_SERVER_URL: env.optionalUrl(['http', 'https']),
    /** Testing aid: every answer appended to this file as a JSON line, for the contract tests (answers hold credentials: tests only). */
    RESPONSE_RECORD_FILE: z.string().optional(),
    LOG_LEVEL: env.logLevel(),
    /** Fair share (fair-share/): token buckets per app and per client address, and caps on slow requests at once. */
    RATE_LIMIT_APP_PER_SECOND: rate(),
    RATE_LIMIT_APP_BURST: count(),
    RATE_LIMIT_ADDRESS_PER_SECOND: rate(),
    RATE_LIMIT_ADDRESS_BURST: count(),
    RATE_LIMIT_EXEMPT_APPS: z
      .string()
      .optional()
      .refine((v) => list(v).every((id) => APP_ID.test(id)), { message: 'must be App IDs (app_ and 22 letters, digits, _ or -) separated by commas' }),
    RATE_LIMIT_APP_OVERRIDES: z
      .string()
      .optional()
      .refine((v) => list(v).every((item) => OVERRIDE.test(item) && Number(OVERRIDE.exec(item)![2]) > 0 && Number(OVERRIDE.exec(item)![3]) > 0), {
        message: 'must be APP_ID=PER_SECOND:BURST entries separated by commas, e.g. app_…=500:1000, both above 0',
      }),
    SLOW_REQUESTS_PER_APP: count(),
    SLOW_REQUESTS_PER_ADDRESS: count(),
    /** Where the fair-share counts live, shared by every gateway replica; unset: in this process. */
    REDIS_URL: env.optionalUrl(['redis', 'rediss']),
    REPLICAS: replicas(),
    GATEWAY_REPLICAS: replicas(),
    /** The metrics listener (GET /metrics), on a port of its own; unset port: none. */
    ...grpcTlsVariables(),
    ...metricsVariables(''),
    ...allPeerVariables(),
  })
  .refine((v) => Boolean(v.TLS_CERT_FILE) === Boolean(v.TLS_KEY_FILE), {
    message: 'TLS_CERT_FILE and TLS_KEY_FILE must be set together',
    path: ['TLS_CERT_FILE'],
  })
  .superRefine(checkSso)
  .superRefine((v, ctx) => {
    for (const [perSecond, burst] of [
      ['RATE_LIMIT_APP_PER_SECOND', 'RATE_LIMIT_APP_BURST'],
      ['RATE_LIMIT_ADDRESS_PER_SECOND', 'RATE_LIMIT_ADDRESS_BURST'],
    ] as const) {
      if (v[perSecond] > 0 !== v[burst] > 0)
        ctx.addIssue({
          code: 'custom',
          path: [v[perSecond] > 0 ? burst : perSecond],
          message: `${perSecond} and ${burst} turn one limiter on together: set both above 0, or neither`,
        });
    }
    const exempt = new Set(list(v.RATE_LIMIT_EXEMPT_APPS));
    const both = list(v.RATE_LIMIT_APP_OVERRIDES).find((item) => exempt.has(item.split('=')[0]!));
    if (both)
      ctx.addIssue({
        code: 'custom',
        path: ['RATE_LIMIT_APP_OVERRIDES'],
        message: `${both.split('=')[0]} is also in RATE_LIMIT_EXEMPT_APPS: give an app one or the other`,
      });
    // As REPLICA_NEEDS does for the services: budgets counted in each replica's memory would be multiplied by the replicas.
    const limited =
      v.RATE_LIMIT_APP_PER_SECOND > 0 ||
      v.RATE_LIMIT_ADDRESS_PER_SECOND > 0 ||
      v.RATE_LIMIT_APP_OVERRIDES ||
      v.SLOW_REQUESTS_PER_APP > 0 ||
      v.SLOW_REQUESTS_PER_ADDRESS > 0;
    const { count: gateways, variable } = replicaCount(v, 'gateway');
    if (limited && gateways > 1 && !v.REDIS_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_URL'],
        message: `is required with ${gateways} gateway replicas (${variable}=${gateways}) when a rate limit or slow-request cap is set: without it each gateway counts on its own, multiplying every budget`,
      });
    }
  })
  .superRefine(requireTlsDirectory)
  .transform((v) => ({
    grpcTls: grpcTls(v, 'gateway'),
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
    /** Single sign-on, or undefined when SSO_CLIENT_ID is unset. */
    sso: ssoSettings(v),
    peers: peerAddresses(v),
    grpcTransport: v.GRPC_TRANSPORT,
    fairShare: {
      app: bucket('app', v.RATE_LIMIT_APP_PER_SECOND, v.RATE_LIMIT_APP_BURST),
      address: bucket('address', v.RATE_LIMIT_ADDRESS_PER_SECOND, v.RATE_LIMIT_ADDRESS_BURST),
      exemptApps: list(v.RATE_LIMIT_EXEMPT_APPS),
      appOverrides: new Map(
        list(v.RATE_LIMIT_APP_OVERRIDES).map((item) => {
          const [, appId, perSecond, burst] = OVERRIDE.exec(item)!;
          return [appId!, { perSecond: Number(perSecond), burst: Number(burst) }] as const;
        }),
      ),
      slowPerApp: v.SLOW_REQUESTS_PER_APP,
      slowPerAddress: v.SLOW_REQUESTS_PER_ADDRESS,
      redisUrl: v.REDIS_URL,
    },
  }));

const bucket = (name: BucketPolicy['name'], perSecond: number, burst: number): BucketPolicy | undefined =>
  perSecond > 0 && burst > 0 ? { name, perSecond, burst } : undefined;

/** 512kb, 1mb... as bytes (the suffixes BODY_LIMIT accepts). */
function sizeInBytes(size: string): number {
  const [, amount, unit] = /^(\d+)(b|kb|mb)$/i.exec(size)!;
  return Number(amount) * { b: 1, kb: 1024, mb: 1024 * 1024 }[unit.toLowerCase() as 'b' | 'kb' | 'mb'];
}

export type GatewayConfig = z.output<typeof schema>;
export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(schema, source);
