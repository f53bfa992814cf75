import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry a secret in anything we log. Handlers log ids and
 * outcomes, never credentials; this is the net under that rule.
 */
const REDACT = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'headers["x-signature"]',
  '*.password',
  '*.token',
  '*.apiKey',
  '*.appSecret',
  '*.bearerToken',
  '*.clientSecret',
  '*.accessToken',
  '*.refreshToken',
  'password',
  'token',
  'apiKey',
  'appSecret',
  'bearerToken',
  'clientSecret',
];

export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  });
}
