import { join } from 'node:path';
import { z } from 'zod';
import { GRPC_TRANSPORTS } from './grpc-client';
import { GRPC_TLS_SETTINGS, type GrpcTls, type GrpcTlsSetting } from './grpc-tls';

/** A configuration problem: the process prints this one line and exits. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Validates the environment against a service's schema. The first problem found
 * becomes one line naming the variable, so a misconfigured pod says why it died.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = issue.path.join('.') || '(environment)';
  const raw = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
  const got = raw === undefined ? 'it is not set' : `got ${JSON.stringify(raw)}`;
  throw new ConfigError(`invalid configuration: ${name}: ${issue.message} (${got})`);
}

/** Common variable types, so every service reads them the same way. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  /** A port that may be left unset: empty means unset (0 is a port: any free one). */
  optionalPort: () =>
    z
      .string()
      .regex(/^$|^\d{1,5}$/, 'must be a port number (0-65535) or empty')
      .optional()
      .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
      .refine((v) => v === undefined || v <= 65535, { message: 'must be a port number (0-65535) or empty' }),
  host: (fallback: string) => z.string().min(1).default(fallback),
  /** "host:port" of a gRPC peer (or a gRPC target such as dns:///name:port); empty means unset. */
  optionalAddress: () =>
    z
      .string()
      .regex(/^$|^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$|^[a-z][a-z0-9+.-]*:\S+$/, 'must be host:port or a gRPC target')
      .optional(),
  /** GRPC_TRANSPORT: how this process carries its unary calls to other services (grpc-client.ts). */
  grpcTransport: () => z.enum(GRPC_TRANSPORTS, { message: `must be ${GRPC_TRANSPORTS.join(' or ')}` }).default('stream'),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** An optional URL: empty means unset, so `FOO=` in a compose file behaves like no FOO. */
  optionalUrl: (protocols: string[]) =>
    z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .refine((v) => v === undefined || protocols.some((p) => v.startsWith(`${p}://`)), {
        message: `must be a ${protocols.join(' or ')} URL`,
      }),
  milliseconds: (fallback: number) => z.coerce.number().int().min(0).default(fallback),
  /** A secret key given as at least 32 bytes of base64/base64url or hex. */
  optionalKey: () =>
    z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .refine((v) => v === undefined || decodeKey(v).length >= 32, { message: 'must be at least 32 bytes, base64 or hex' }),
};

export function decodeKey(text: string): Buffer {
  return /^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0 ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64url');
}

/** Where a process serves its metrics (metrics.ts). */
export interface MetricsListen {
  host: string;
  port: number;
}

/**
 * `<PREFIX>METRICS_PORT` and `<PREFIX>METRICS_HOST`, to spread into a config
 * schema: the gateway's have no prefix, a service's carry its name
 * (`IDENTITY_METRICS_PORT`), since one environment reaches every process.
 * Unset or empty port: no metrics listener. The host defaults to loopback.
 */
export function metricsVariables(prefix: string) {
  return {
    [`${prefix}METRICS_PORT`]: env.optionalPort(),
    [`${prefix}METRICS_HOST`]: env.host('127.0.0.1'),
  };
}

/** The metrics listener the parsed variables ask for, if any. */
export function metricsListen(vars: Record<string, unknown>, prefix: string): MetricsListen | undefined {
  const port = vars[`${prefix}METRICS_PORT`];
  return typeof port === 'number' ? { host: String(vars[`${prefix}METRICS_HOST`]), port } : undefined;
}

/**
 * GRPC_TLS (`on`, the default; `off`; or, while a release moves to mutual
 * TLS or back, `accept-tls` and `send-tls`: grpc-tls.ts), GRPC_TLS_DIR (this
 * process's ca.crt, tls.crt and tls.key), GRPC_TLS_RUN_DIR (where `npm start`
 * keeps every process's directory, one per name: a process started alone
 * with the same environment finds its own there) and GRPC_TLS_REFRESH_MS
 * (how often the files are read again, so a rotated certificate is taken
 * without a restart), to spread into a config schema with
 * `.superRefine(requireTlsDirectory)`. Every process that serves or calls
 * gRPC reads them (grpc-tls.ts).
 */
export function grpcTlsVariables() {
  return {
    GRPC_TLS: z.enum(GRPC_TLS_SETTINGS, { message: `must be ${GRPC_TLS_SETTINGS.join(', ')}` }).default('on'),
    GRPC_TLS_DIR: z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v)),
    GRPC_TLS_RUN_DIR: z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v)),
    GRPC_TLS_REFRESH_MS: z.coerce.number().int().min(100).default(10_000),
  };
}

/** Unless GRPC_TLS=off the directory must be given: a service never falls back to plaintext by itself. */
export function requireTlsDirectory(vars: { GRPC_TLS: GrpcTlsSetting; GRPC_TLS_DIR?: string; GRPC_TLS_RUN_DIR?: string }, ctx: z.RefinementCtx): void {
  if (vars.GRPC_TLS !== 'off' && !vars.GRPC_TLS_DIR && !vars.GRPC_TLS_RUN_DIR) {
    ctx.addIssue({
      code: 'custom',
      path: ['GRPC_TLS_DIR'],
      message: `must name a directory holding ca.crt, tls.crt and tls.key (GRPC_TLS=${vars.GRPC_TLS} needs this process's certificate; npm start makes them; GRPC_TLS=off turns mutual TLS off for local debugging)`,
    });
  }
}

/** The parsed variables as grpc-tls.ts takes them, for the process called `name` (gateway, identity, ...). */
export function grpcTls(
  vars: { GRPC_TLS: GrpcTlsSetting; GRPC_TLS_DIR?: string; GRPC_TLS_RUN_DIR?: string; GRPC_TLS_REFRESH_MS: number },
  name: string,
): GrpcTls {
  if (vars.GRPC_TLS === 'off') return { mode: 'off' };
  const files = { dir: vars.GRPC_TLS_DIR ?? join(vars.GRPC_TLS_RUN_DIR!, name), refreshMs: vars.GRPC_TLS_REFRESH_MS };
  if (vars.GRPC_TLS === 'accept-tls') return { mode: 'off', acceptTls: files };
  if (vars.GRPC_TLS === 'send-tls') return { mode: 'mtls', ...files, acceptPlaintext: true };
  return { mode: 'mtls', ...files };
}
