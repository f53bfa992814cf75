import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { defaultResource, detectResources, resourceAttributesEnvDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Tracing, TracingSettings } from './tracing';

/**
 * The OpenTelemetry SDK, set up from TracingSettings. Required only by
 * tracing.ts's startTracing, and only when tracing is on, so a process that
 * does not trace never loads any of these packages.
 */

/** How long a graceful stop waits for the last spans to reach the backend: a backend that is down must not hold a pod's termination. */
const SHUTDOWN_TIMEOUT_MS = 5000;

/** `exporter` replaces the OTLP exporter (a test's in-memory one); spans then go to it as they end. */
export function startSdk(settings: TracingSettings, exporter?: SpanExporter): Tracing {
  const resource = defaultResource()
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector] })) // OTEL_RESOURCE_ATTRIBUTES
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, ...(settings.namespace ? { 'service.namespace': settings.namespace } : {}) }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings),
    // Spans leave in batches from a bounded queue, off the request's path; a full queue drops spans, never blocks a request.
    spanProcessors: [
      exporter
        ? new SimpleSpanProcessor({ exporter })
        : new BatchSpanProcessor({
            exporter: new OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.headers, timeoutMillis: SHUTDOWN_TIMEOUT_MS }),
            ...batchOptions(process.env),
          }),
    ],
  });
  const contextManager = new AsyncLocalStorageContextManager();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  const propagator = new W3CTraceContextPropagator();
  propagation.setGlobalPropagator(propagator);
  // The stores' spans. requireParentSpan: only operations made while serving a
  // call are traced, not the background ones (change feeds, health checks,
  // the fair-share buckets' housekeeping), which would each be a trace of its
  // own. Redis spans carry the command's name only: keys and values include
  // authorization codes and tokens. MongoDB's default statement replaces
  // every value with "?".
  const instrumentations = [
    new MongoDBInstrumentation({ requireParentSpan: true }),
    new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
  ];
  for (const instrumentation of instrumentations) instrumentation.setTracerProvider(provider);

  const tracer = provider.getTracer('@sandbox/runtime');
  return {
    tracer,
    settings,
    kind: SpanKind,
    active: () => contextManager.active(),
    recording: () => trace.getSpan(contextManager.active())?.isRecording() ?? false,
    contextWith: (span) => trace.setSpan(contextManager.active(), span),
    withSpan: (span, fn) => contextManager.with(trace.setSpan(contextManager.active(), span), fn),
    inject: (ctx, carrier, setter) => propagator.inject(ctx, carrier, setter),
    // From the root: a server span's parent is what the call carried, never whatever context delivered the call.
    extract: (carrier, getter) => propagator.extract(ROOT_CONTEXT, carrier, getter),
    fail: (span: Span, message: string) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
    logIds: () => {
      const span = trace.getSpan(contextManager.active());
      if (!span) return undefined;
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    shutdown: async () => {
      for (const instrumentation of instrumentations) instrumentation.disable();
      await Promise.race([provider.shutdown(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS).unref())]);
    },
  };
}

/** OTEL_TRACES_SAMPLER and its argument, as the specification defines them. */
function samplerOf({ sampler, ratio }: TracingSettings): Sampler {
  switch (sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** The batch processor's OTEL_BSP_* variables (the SDK no longer reads them itself); unset or malformed ones keep the SDK's defaults. */
function batchOptions(env: NodeJS.ProcessEnv): {
  scheduledDelayMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
  exportTimeoutMillis?: number;
} {
  const positive = (name: string) => {
    const value = Number(env[name]);
    return env[name] && Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const options = {
    scheduledDelayMillis: positive('OTEL_BSP_SCHEDULE_DELAY'),
    maxQueueSize: positive('OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: positive('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
    exportTimeoutMillis: positive('OTEL_BSP_EXPORT_TIMEOUT'),
  };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
