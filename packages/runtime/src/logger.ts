import pino, { type DestinationStream, type Logger } from 'pino';
import { activeTracing } from './tracing';

export type { Logger };

/**
 * Keys whose values are never written, at the top of a log object or one
 * level down (e.g. `headers.authorization`). Handlers log ids and outcomes,
 * never credentials; this is the net under that rule.
 */
const SECRET_KEYS = new Set([
  'authorization',
  'cookie',
  'x-api-key',
  'x-signature',
  'password',
  'token',
  'apiKey',
  'api_key',
  'appSecret',
  'bearerToken',
  'clientSecret',
  'client_secret',
  'accessToken',
  'refreshToken',
]);
const CENSOR = '[redacted]';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/**
 * Does what pino's `redact: ['*.authorization', …]` did, at a fraction of the
 * cost: wildcard paths cost about 5 µs a line, more than the rest of the
 * access log line, which is written for every request.
 */
export function redactSecrets(object: Record<string, unknown>): Record<string, unknown> {
  let out = object;
  for (const key in object) {
    const value = object[key];
    let replaced: unknown = value;
    if (SECRET_KEYS.has(key)) replaced = CENSOR;
    else if (isPlainObject(value)) {
      for (const inner in value) {
        if (SECRET_KEYS.has(inner)) {
          replaced = { ...value };
          for (const k in value) if (SECRET_KEYS.has(k)) (replaced as Record<string, unknown>)[k] = CENSOR;
          break;
        }
      }
    }
    if (replaced !== value) {
      if (out === object) out = { ...object };
      out[key] = replaced;
    }
  }
  return out;
}

/** Log lines wait at most this long in the buffer. */
const FLUSH_INTERVAL_MS = 250;

/**
 * Standard output, written in chunks of about 4 KB (or every 250 ms when
 * quiet): a write per line was a third of the gateway's throughput under load,
 * and pino's asynchronous mode hands each write to libuv's thread pool, which
 * costs as much again in wake-ups on a 2-core machine. Flushed on exit.
 */
let stdout: ReturnType<typeof pino.destination> | undefined;
function bufferedStdout(): DestinationStream {
  if (!stdout) {
    // One per process, shared by every logger in it, so lines never interleave mid-chunk.
    const destination = pino.destination({ dest: 1, sync: true, minLength: 4096 });
    setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
    process.once('exit', () => destination.flushSync());
    stdout = destination;
  }
  return stdout;
}

const NO_IDS = {};

export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  // With tracing on (started before any logger is made: process-main.ts), every line written while a
  // span is active carries its trace_id and span_id, so a trace leads to its log lines and back.
  // With tracing off there is no mixin at all: a line costs what it did.
  const tracing = activeTracing();
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: redactSecrets },
      ...(tracing ? { mixin: () => tracing.logIds() ?? NO_IDS } : {}),
    },
    destination ?? bufferedStdout(),
  );
}
