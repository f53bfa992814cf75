import type { Context, Span, SpanKind, TextMapGetter, TextMapSetter, Tracer } from '@opentelemetry/api';

export type { Span };

/**
 * OpenTelemetry tracing (docs/operations.md, "Traces"): off unless an OTLP
 * endpoint is configured, with the standard OTEL_* variables. This module is
 * what the rest of the code sees of it, and it loads nothing of
 * OpenTelemetry itself: the SDK, its exporter and the instrumentations are
 * required by tracing-sdk.ts, and only when tracing is on. With tracing off
 * `activeTracing()` is undefined, and every hook (the gateway's server span,
 * the client and server spans of each call, the log mixin) is one test of it.
 */

/** The samplers the OTEL_TRACES_SAMPLER variable names (the specification's list, less the vendor ones). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

export interface TracingSettings {
  /** Where spans are posted: OTLP over HTTP, protobuf encoded (the full URL, `/v1/traces` included). */
  tracesUrl: string;
  /** Headers of every export (OTEL_EXPORTER_OTLP_HEADERS / _TRACES_HEADERS), e.g. a hosted backend's key. */
  headers: Record<string, string>;
  sampler: TraceSampler;
  /** The ratio of traceidratio samplers, 0 to 1. */
  ratio: number;
  /** The service.name of this process's spans. */
  serviceName: string;
  /** OTEL_SERVICE_NAME, when set: the service.namespace, and the prefix of serviceName. */
  namespace?: string;
}

/** The W3C trace context of a call: what goes in its metadata (unary) or its Call message (stream). */
export interface TraceCarrier {
  traceparent: string;
  tracestate: string;
}

/** What the hooks use of a running SDK (tracing-sdk.ts). */
export interface Tracing {
  readonly tracer: Tracer;
  readonly settings: TracingSettings;
  /** The API's SpanKind values, so callers need not load the API themselves. */
  readonly kind: typeof SpanKind;
  /** The context active now (AsyncLocalStorage). */
  active(): Context;
  /** Whether a sampled (recording) span is active: only then do calls get client spans and carry trace context. */
  recording(): boolean;
  /** The active context with `span` as its span. */
  contextWith(span: Span): Context;
  /** Runs `fn` with `span` as the active span: spans started inside are its children, log lines carry its ids. */
  withSpan<T>(span: Span, fn: () => T): T;
  /** Writes the context's span into the carrier (W3C traceparent/tracestate). */
  inject<C>(context: Context, carrier: C, setter: TextMapSetter<C>): void;
  /** The context a carrier's traceparent/tracestate continue (the root context when it has none). */
  extract<C>(carrier: C, getter: TextMapGetter<C>): Context;
  /** Marks a span failed with a message (status ERROR), as the semantic conventions ask for server errors. */
  fail(span: Span, message: string): void;
  /** trace_id and span_id of the active span, for log lines; undefined outside any span. */
  logIds(): { trace_id: string; span_id: string } | undefined;
  /** Ends tracing: exports what is buffered (bounded by a timeout) and stops the exporter. */
  shutdown(): Promise<void>;
}

let current: Tracing | undefined;

/** The running SDK, or undefined when tracing is off (the one test every hook makes). */
export function activeTracing(): Tracing | undefined {
  return current;
}

/** Set by tracing-start.ts only. */
export function setActiveTracing(tracing: Tracing | undefined): void {
  current = tracing;
}

/** Reads and writes a traceparent/tracestate pair (the Call message's fields, or a test's carrier). */
export const carrierGetter: TextMapGetter<TraceCarrier> = {
  get: (carrier, key) => (key === 'traceparent' || key === 'tracestate' ? carrier[key] || undefined : undefined),
  keys: () => ['traceparent', 'tracestate'],
};
export const carrierSetter: TextMapSetter<TraceCarrier> = {
  set: (carrier, key, value) => {
    if (key === 'traceparent' || key === 'tracestate') carrier[key] = value;
  },
};
