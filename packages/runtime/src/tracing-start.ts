import { z } from 'zod';
import { ConfigError, loadConfig } from './config';
import { activeTracing, setActiveTracing, TRACE_SAMPLERS, type Tracing, type TracingSettings } from './tracing';

/**
 * Reading the OTEL_* variables, and starting and stopping the SDK
 * (tracing.ts says what tracing is; tracing-sdk.ts is the SDK itself).
 */

const samplerArg = z.number({ message: 'must be a ratio from 0 to 1' }).min(0, 'must be a ratio from 0 to 1').max(1, 'must be a ratio from 0 to 1');

const schema = z.object({
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().optional(),
  OTEL_TRACES_SAMPLER: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? 'parentbased_always_on' : v.trim().toLowerCase()))
    .pipe(z.enum(TRACE_SAMPLERS, { message: `must be one of ${TRACE_SAMPLERS.join(', ')}` })),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? 1 : Number(v)))
    .pipe(samplerArg),
  OTEL_SERVICE_NAME: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined)),
});

const isUrl = (value: string) => /^https?:\/\/[^\s/]+/.test(value);

/**
 * Tracing's settings for the process named `processName`, or undefined when
 * tracing is off: no endpoint set, or OTEL_SDK_DISABLED=true. A process always
 * names itself (gateway, identity, oauth, data, playground): `npm start`
 * gives its five processes one environment, so one OTEL_SERVICE_NAME would
 * merge them into one service in the backend. OTEL_SERVICE_NAME therefore
 * names the deployment instead: it becomes service.namespace and the prefix
 * of each service.name ("class-a" gives "class-a-gateway"), so two sandboxes
 * sending to one backend stay apart. Throws a ConfigError naming the variable
 * when a value is malformed, so a misconfigured pod says why it died.
 */
export function tracingSettings(processName: string, env: NodeJS.ProcessEnv = process.env): TracingSettings | undefined {
  // Off: nothing else is read, so a stray OTEL_* value cannot stop a process that does not trace.
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!traces && !base) return undefined;
  const parsed = loadConfig(schema, env);
  // The specification's rule: the signal's own endpoint is used as given; the base one gets the signal's path.
  const tracesUrl = traces || `${base!.replace(/\/+$/, '')}/v1/traces`;
  if (!isUrl(tracesUrl)) {
    const name = traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
    throw new ConfigError(`invalid configuration: ${name}: must be an http or https URL (got ${JSON.stringify(env[name])})`);
  }
  const namespace = parsed.OTEL_SERVICE_NAME;
  return {
    tracesUrl,
    headers: { ...keyValues(parsed.OTEL_EXPORTER_OTLP_HEADERS), ...keyValues(parsed.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    sampler: parsed.OTEL_TRACES_SAMPLER,
    ratio: parsed.OTEL_TRACES_SAMPLER_ARG,
    serviceName: namespace ? `${namespace}-${processName}` : processName,
    namespace,
  };
}

/** `key=value,key2=value2`, values percent-decoded (the OTEL_*_HEADERS format). */
function keyValues(list: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (list ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const value = pair.slice(at + 1).trim();
    try {
      out[pair.slice(0, at).trim()] = decodeURIComponent(value);
    } catch {
      out[pair.slice(0, at).trim()] = value; // a stray % is taken as it is, not a reason to stop the process
    }
  }
  return out;
}

/**
 * Starts tracing for this process when the environment asks for it. Must run
 * before the modules of the stores' drivers are required (mongodb, ioredis):
 * their instrumentations patch a module as it is first loaded, so
 * process-main calls this before the composition is imported. With tracing
 * off nothing of the SDK is loaded at all.
 */
export function startTracing(processName: string, env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  const running = activeTracing();
  if (running) return running;
  const settings = tracingSettings(processName, env);
  if (!settings) return undefined;
  // Required here, not imported above: this line is what keeps the SDK out of a process that does not trace.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./tracing-sdk') as typeof import('./tracing-sdk');
  const started = sdk.startSdk(settings);
  setActiveTracing(started);
  return started;
}

/** Flushes and stops tracing, if it runs (a graceful stop: spans of the last requests still reach the backend). */
export async function stopTracing(): Promise<void> {
  const running = activeTracing();
  setActiveTracing(undefined);
  await running?.shutdown();
}
