import type { Metadata } from '@grpc/grpc-js';
import type { Context, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { GrpcStatus } from './errors';
import { carrierSetter, type Span, type TraceCarrier, type Tracing } from './tracing';

/**
 * The spans the sandbox makes itself, named and attributed as OpenTelemetry's
 * semantic conventions say (HTTP server, gRPC client and server), for the
 * hooks in the gateway's listener, the batch runner, grpc-client.ts and
 * grpc-server.ts. Each takes the running Tracing, so a caller with tracing
 * off never gets here. Never an attribute with a credential: no headers, no
 * query string, no request or response message.
 */

/** traceparent/tracestate in gRPC metadata: how a unary call carries trace context, and how the stream's server hands it on. */
export const metadataGetter: TextMapGetter<Metadata> = {
  get: (metadata, key) => {
    const value = metadata.get(key)[0];
    return typeof value === 'string' ? value : undefined;
  },
  keys: (metadata) => Object.keys(metadata.getMap()),
};
export const metadataSetter: TextMapSetter<Metadata> = {
  set: (metadata, key, value) => metadata.set(key, value),
};

/** "/sandbox.oauth.v1.OAuthService/IssueToken" as the conventions split it. */
function rpcAttributes(path: string) {
  const slash = path.lastIndexOf('/');
  return { 'rpc.system': 'grpc', 'rpc.service': path.slice(1, slash), 'rpc.method': path.slice(slash + 1) };
}

/** Statuses that mean the server failed (the conventions' list for gRPC server spans); a refusal (UNAUTHENTICATED, NOT_FOUND, …) is an answer, not an error. */
const SERVER_ERRORS = new Set<number>([
  GrpcStatus.UNKNOWN,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.UNIMPLEMENTED,
  GrpcStatus.INTERNAL,
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.DATA_LOSS,
]);

/** Ends a call's span with its gRPC status (a client span: any status but OK is an error; a server span: only SERVER_ERRORS). */
export function endRpcSpan(tracing: Tracing, span: Span, code: number, details: string | undefined, server: boolean): void {
  span.setAttribute('rpc.grpc.status_code', code);
  if (code !== GrpcStatus.OK && (!server || SERVER_ERRORS.has(code))) tracing.fail(span, details ?? '');
  span.end();
}

/**
 * The client span of one call to `peer`, a child of the active span, and the
 * trace context that continues it, for the call's metadata or Call message.
 * Undefined outside a sampled trace: a call made for a request the sampler
 * left out (or for no request at all) carries nothing and costs nothing more,
 * and the service then makes no span for it either (startServerSpan).
 */
export function startClientSpan(tracing: Tracing, path: string, peer: string): { span: Span; carrier: TraceCarrier } | undefined {
  if (!tracing.recording()) return undefined;
  const span = tracing.tracer.startSpan(
    path.slice(1),
    { kind: tracing.kind.CLIENT, attributes: { ...rpcAttributes(path), 'server.address': peer } },
    tracing.active(),
  );
  const carrier: TraceCarrier = { traceparent: '', tracestate: '' };
  tracing.inject(tracing.contextWith(span), carrier, carrierSetter);
  return { span, carrier };
}

/**
 * A service's span for one call, the child of the caller's client span; none
 * for a call that carries no trace context. Traces start at the gateway, whose
 * sampler decides for the whole request: a call from outside a sampled trace
 * (an unsampled request, grpcurl, the operators' CLI, a caller with tracing
 * off) is served untraced, instead of starting a trace of its own.
 */
export function startServerSpan(tracing: Tracing, path: string, metadata: Metadata): Span | undefined {
  if (metadata.get('traceparent').length === 0) return undefined;
  const parent = tracing.extract(metadata, metadataGetter);
  return tracing.tracer.startSpan(path.slice(1), { kind: tracing.kind.SERVER, attributes: rpcAttributes(path) }, parent);
}

/**
 * The gateway's span for one HTTP request (or one batch item, with the
 * batch's context as `parent`), named "METHOD route-pattern": the row's
 * pattern, never the path, which holds ids. A request's span is a root: trace
 * context a client sends is not continued, since the gateway faces the
 * internet and a learner's traceparent would choose the trace id and the
 * sampling decision.
 */
export function startHttpSpan(tracing: Tracing, method: string, route: string, parent?: Context): Span {
  return tracing.tracer.startSpan(
    `${method} ${route}`,
    { kind: parent ? tracing.kind.INTERNAL : tracing.kind.SERVER, root: !parent, attributes: { 'http.request.method': method, 'http.route': route } },
    parent,
  );
}

/** Paths longer than this are cut in spans, as in the access log. */
const PATH_MAX = 512;

/**
 * Ends an HTTP span with its answer's status (5xx is the server's error, 4xx
 * the client's, as the conventions say for server spans) and its path
 * without the query string, which may hold an api_key. A batch item's row is
 * known only once it is matched, so its route may be given here.
 */
export function endHttpSpan(tracing: Tracing, span: Span, status: number, path: string, route?: string, method?: string): void {
  span.setAttribute('http.response.status_code', status);
  span.setAttribute('url.path', path.length > PATH_MAX ? `${path.slice(0, PATH_MAX)}…` : path);
  if (route && method) {
    span.setAttribute('http.route', route);
    span.updateName(`${method} ${route}`);
  }
  if (status >= 500) tracing.fail(span, `HTTP ${status}`);
  span.end();
}
