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
import type { SignUpPolicy } from './domain/sign-up-policy';
import { displayEmail } from './domain/validation';

const seconds = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const schema = z
  .object({
    IDENTITY_GRPC_HOST: env.host('127.0.0.1'),
    IDENTITY_GRPC_PORT: env.port(50051),
    /** Unset: users, apps and logs live in memory (the embedded default). */
    MONGO_URL: env.optionalUrl(['mongodb', 'mongodb+srv']),
    /** Unset: sign-in failures are counted in this process's memory; set: in Redis, shared by every replica. */
    REDIS_URL: env.optionalUrl(['redis', 'rediss']),
    /** Encrypts API keys at rest and keys their lookup hash. */
    CREDENTIAL_ENCRYPTION_KEY: env.optionalKey(),
    /** Signs portal session JWTs (HS256); request-log page tokens are signed with a key derived from it (HKDF). */
    SESSION_SIGNING_KEY: env.optionalKey(),
    /** Lifetime of a portal session, in seconds. */
    SESSION_TTL: seconds(3600, 60, 7 * 24 * 3600),
    /** A platform team's own identity provider, trusted for portal sessions. */
    EXTERNAL_IDP_ISSUER: env.optionalUrl(['https', 'http']),
    EXTERNAL_IDP_JWKS_URL: env.optionalUrl(['https', 'http']),
    EXTERNAL_IDP_AUDIENCE: z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v)),
    /** Who may sign up with a password: anyone, only emails at SIGNUP_DOMAINS, or nobody (docs/identity.md). */
    SIGNUP: z.enum(['open', 'domain', 'closed'], { message: 'must be open, domain or closed' }).default('open'),
    /** With SIGNUP=domain: the email domains allowed, comma-separated, each exactly (a subdomain is listed on its own). */
    SIGNUP_DOMAINS: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((d) => d.trim().toLowerCase())
          .filter((d) => d !== ''),
      )
      .refine((domains) => domains.every((d) => /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(d)), {
        message: 'must be email domains separated by commas (example.edu,example.org)',
      }),
    /** false: accounts with a password cannot sign in (people sign in through the identity provider). */
    LOCAL_SIGN_IN: env.bool(true),
    /**
     * Operators (docs/operators.md): these emails, comma-separated, kept in
     * the canonical form of account emails (validation.ts), so any case
     * matches; an identity provider's only when its token has email_verified...
     */
    OPERATOR_EMAILS: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((e) => e.trim())
          .filter((e) => e !== ''),
      )
      .refine((emails) => emails.every((e) => displayEmail(e) !== ''), {
        message: 'must be email addresses separated by commas (ops@example.org,lead@example.org)',
      })
      .transform((emails) => emails.map(displayEmail)),
    /** ...and whoever's identity-provider token lists one of these groups in OPERATOR_GROUPS_CLAIM. */
    OPERATOR_GROUPS: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((g) => g.trim())
          .filter((g) => g !== ''),
      ),
    OPERATOR_GROUPS_CLAIM: z.string().min(1).default('groups'),
    REQUEST_LOG_CAP_PER_APP: z.coerce.number().int().min(1).max(100_000).default(1000),
    /**
     * How long a verification answer may be reused in this process. The gateway
     * caches for at most 500 ms too, so a rotation or revocation reaches every
     * replica within a second; hence the upper bound.
     */
    VERIFICATION_CACHE_MS: z.coerce.number().int().min(0).max(500).default(500),
    /** Password hashes (scrypt) computed at once, and how many may wait; beyond that sign-ins get 429 with Retry-After. */
    PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
    LOG_LEVEL: env.logLevel(),
    /** How long calls in flight may finish after SIGTERM before they are cut. */
    SHUTDOWN_GRACE_MS: env.milliseconds(10_000),
    ...grpcTlsVariables(),
    /** A port serving only grpc.health.v1 without TLS, for probes that cannot present a certificate (Kubernetes'); unset: none. */
    IDENTITY_HEALTH_PORT: env.optionalPort(),
    ...metricsVariables('IDENTITY_'),
    ...replicaVariables('identity'),
  })
  .superRefine(requireReplicaNeeds('identity'))
  .superRefine((v, ctx) => {
    // With a database, credentials and sessions outlive the process, so the keys
    // that protect them must too: a random key would strand every stored API key.
    if (v.MONGO_URL) {
      for (const name of ['CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY'] as const) {
        if (!v[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'is required when MONGO_URL is set' });
      }
    }
    if (v.SIGNUP === 'domain' && v.SIGNUP_DOMAINS.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['SIGNUP_DOMAINS'], message: 'is required with SIGNUP=domain: the email domains that may sign up' });
    }
    const idp = ['EXTERNAL_IDP_ISSUER', 'EXTERNAL_IDP_JWKS_URL', 'EXTERNAL_IDP_AUDIENCE'] as const;
    const given = idp.filter((name) => v[name] !== undefined);
    if (given.length > 0 && given.length < idp.length) {
      const missing = idp.find((name) => v[name] === undefined)!;
      ctx.addIssue({ code: 'custom', path: [missing], message: `is required together with ${given.join(', ')}` });
    }
  })
  .superRefine(requireTlsDirectory)
  .transform((v) => ({
    grpcTls: grpcTls(v, 'identity'),
    healthPort: v.IDENTITY_HEALTH_PORT,
    host: v.IDENTITY_GRPC_HOST,
    port: v.IDENTITY_GRPC_PORT,
    mongoUrl: v.MONGO_URL,
    redisUrl: v.REDIS_URL,
    credentialEncryptionKey: v.CREDENTIAL_ENCRYPTION_KEY === undefined ? undefined : decodeKey(v.CREDENTIAL_ENCRYPTION_KEY),
    sessionSigningKey: v.SESSION_SIGNING_KEY === undefined ? undefined : decodeKey(v.SESSION_SIGNING_KEY),
    sessionTtlSeconds: v.SESSION_TTL,
    externalIdp:
      v.EXTERNAL_IDP_ISSUER && v.EXTERNAL_IDP_JWKS_URL && v.EXTERNAL_IDP_AUDIENCE
        ? { issuer: v.EXTERNAL_IDP_ISSUER, jwksUrl: v.EXTERNAL_IDP_JWKS_URL, audience: v.EXTERNAL_IDP_AUDIENCE }
        : undefined,
    signUp: signUpPolicy(v.SIGNUP, v.SIGNUP_DOMAINS, v.LOCAL_SIGN_IN),
    operators: { emails: new Set(v.OPERATOR_EMAILS), groups: new Set(v.OPERATOR_GROUPS), groupsClaim: v.OPERATOR_GROUPS_CLAIM },
    requestLogCapPerApp: v.REQUEST_LOG_CAP_PER_APP,
    passwordHashing: { concurrency: v.PASSWORD_HASH_CONCURRENCY, maxWaiting: v.PASSWORD_HASH_QUEUE },
    verificationCacheMs: v.VERIFICATION_CACHE_MS,
    logLevel: v.LOG_LEVEL,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    metrics: metricsListen(v, 'IDENTITY_'),
  }));

function signUpPolicy(mode: 'open' | 'domain' | 'closed', domains: string[], localSignIn: boolean): SignUpPolicy {
  return mode === 'domain' ? { mode, domains, localSignIn } : { mode, localSignIn };
}

export type IdentityConfig = z.output<typeof schema>;
export const loadIdentityConfig = (source: NodeJS.ProcessEnv = process.env): IdentityConfig => loadConfig(schema, source);
