import {
  type ChannelCredentials,
  Metadata,
  type CallOptions,
  type ChannelOptions,
  type Client,
  type ClientUnaryCall,
  type ClientWritableStream,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { CallStreamPool, type StreamCallError } from './call-stream-client';
import type { CancelSignal } from './cancellation';
import { fromServiceError, GrpcStatus } from './errors';
import { REQUEST_ID_KEY } from './grpc-server';
import { grpcMethodName, monotonicMs, type CallMetrics, type CallRecorder } from './metrics';
import type { Resolve } from './target-resolution';
import { grpcChannelSecurity, type GrpcTls } from './grpc-tls';
import { activeTracing } from './tracing';
import { endRpcSpan, metadataSetter, startClientSpan } from './tracing-spans';

/**
 * How a caller carries unary calls: `stream` multiplexes them over one
 * long-lived stream per replica (the cheap hop, docs/decisions.md); `unary`
 * makes each its own HTTP/2 stream, plain gRPC (the switch back, and what
 * grpcurl and other clients do).
 */
export const GRPC_TRANSPORTS = ['stream', 'unary'] as const;
export type GrpcTransport = (typeof GRPC_TRANSPORTS)[number];

export interface CallOptionsLite {
  /** Overrides the adapter's default deadline. */
  deadlineMs?: number;
  requestId?: string;
  /** Cancels the call, e.g. when the HTTP client went away. */
  signal?: CancelSignal;
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * A client-streaming call in progress: write messages (false: wait for
 * 'drain', so a slow service makes the caller wait instead of buffering
 * without bound), then end it and await the answer.
 */
export interface ClientStream<Req, Res> {
  write(message: Req): boolean;
  /** Resolves once the stream can take more after write() answered false. */
  drained(): Promise<void>;
  end(): void;
  cancel(): void;
  readonly response: Promise<Res>;
}

type ClientStreamMethod<Req, Res> = (
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientWritableStream<Req>;

/** The generated client, as promise-returning methods with a deadline each. */
export type PromiseClient<C> = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- matches any request/response pair
  [K in keyof C as C[K] extends UnaryMethod<any, any> ? K : never]: C[K] extends UnaryMethod<infer Req, infer Res>
    ? (request: Req, options?: CallOptionsLite) => Promise<Res>
    : never;
} & {
  close(): void;
  readonly peer: string;
  /** Opens a client-streaming call of `method` (its name in the generated client), with the same deadline, request id and cancellation. */
  clientStream<Req, Res>(method: string, options?: CallOptionsLite): ClientStream<Req, Res>;
};

export interface PromiseClientOptions {
  /** Counts and times every call by method and status code (sandbox_grpc_client_*), under the peer's name as the service. */
  metrics?: CallMetrics;
  /** `unary` unless told otherwise: each caller's configuration chooses (GRPC_TRANSPORT). */
  transport?: GrpcTransport;
  /** Turns a DNS target's host into addresses (stream transport); DNS unless a test gives its own. */
  resolve?: Resolve;
}

/** How a process reaches the others: mutual TLS (its directory) or, for local debugging, none (grpc-tls.ts). */
export type PromiseClientSecurity = { tls: GrpcTls };

type ClientConstructor<C> = new (address: string, creds: ChannelCredentials, options?: ChannelOptions) => C;

/**
 * Reconnect quickly after a peer restarts (the default backoff grows to two
 * minutes), and spread calls over every address a headless Service resolves to.
 */
const CONNECTION_OPTIONS: ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  'grpc.keepalive_time_ms': 30_000,
};
const CHANNEL_OPTIONS: ChannelOptions = {
  ...CONNECTION_OPTIONS,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/**
 * The one way a process talks to another service: every call has a deadline,
 * carries the request id, and fails as an AppError.
 */
export function promiseClient<C extends Client>(
  Ctor: ClientConstructor<C>,
  definition: ServiceDefinition,
  address: string,
  peer: string,
  defaultDeadlineMs: number,
  { tls }: PromiseClientSecurity,
  { metrics, transport = 'unary', resolve }: PromiseClientOptions = {},
): PromiseClient<C> {
  const target = /^(dns|ipv4|ipv6|unix|unix-abstract):/.test(address) ? address : `dns:///${address}`;
  const security = grpcChannelSecurity(tls, peer);
  const client = new Ctor(target, security.credentials, { ...CHANNEL_OPTIONS, ...security.options });
  const pool =
    transport === 'stream'
      ? new CallStreamPool(target, { channelOptions: { ...CONNECTION_OPTIONS, ...security.options }, credentials: security.credentials, resolve })
      : undefined;
  // Tracing started before the composition made this client (process-main.ts), or never.
  const tracing = activeTracing();
  /** One recorder per method, made up front: a call only reads the clock twice and bumps two series. */
  const recorders = new Map<string, CallRecorder>();
  if (metrics) for (const [name, method] of Object.entries(definition)) recorders.set(name, metrics.recorder(peer, grpcMethodName(method.path)));
  const timer = (name: string): ((error: ServiceError | null) => void) | undefined => {
    const record = recorders.get(name);
    if (!record) return undefined;
    const started = monotonicMs();
    record.started();
    return (error) => record.finished(error ? error.code : GrpcStatus.OK, (monotonicMs() - started) / 1000);
  };
  const callOptions = (options: CallOptionsLite) => {
    const metadata = new Metadata();
    if (options.requestId) metadata.set(REQUEST_ID_KEY, options.requestId);
    return { metadata, deadline: Date.now() + (options.deadlineMs ?? defaultDeadlineMs) };
  };
  const adapter: Record<string, unknown> = {
    peer,
    close: () => {
      pool?.close();
      client.close();
    },
    clientStream<Req, Res>(name: string, options: CallOptionsLite = {}): ClientStream<Req, Res> {
      const method = (client as unknown as Record<string, ClientStreamMethod<Req, Res>>)[name];
      const { metadata, deadline } = callOptions(options);
      const finished = timer(name);
      let call!: ClientWritableStream<Req>;
      const response = new Promise<Res>((resolve, reject) => {
        call = method.call(client, metadata, { deadline }, (error, answer) => {
          finished?.(error);
          options.signal?.removeEventListener('abort', cancel);
          if (error) reject(fromServiceError(error, peer));
          else resolve(answer);
        });
      });
      const cancel = () => call.cancel();
      options.signal?.addEventListener('abort', cancel, { once: true });
      return {
        write: (message) => call.write(message),
        drained: () => new Promise((resolve) => call.once('drain', () => resolve())),
        end: () => call.end(),
        cancel,
        response,
      };
    },
  };
  for (const name of Object.keys(definition)) {
    const method = (client as unknown as Record<string, UnaryMethod<unknown, unknown>>)[name];
    // Streaming methods have their own callers (e.g. the gateway's upload); the adapter is for unary calls.
    if (definition[name].responseStream || definition[name].requestStream) continue;
    const { path } = definition[name];
    if (pool) {
      const { requestSerialize, responseDeserialize } = definition[name];
      adapter[name] = (request: unknown, options: CallOptionsLite = {}) => {
        const finished = timer(name);
        // With tracing on, the call's client span, and its trace context in the Call message (gRPC's own metadata is the stream's, not the call's).
        const traced = tracing && startClientSpan(tracing, path, peer);
        return pool.call(path, requestSerialize(request), options.deadlineMs ?? defaultDeadlineMs, options.requestId, options.signal, traced?.carrier).then(
          (response) => {
            finished?.(null);
            if (traced) endRpcSpan(tracing, traced.span, GrpcStatus.OK, undefined, false);
            return responseDeserialize(response as Buffer);
          },
          (error: StreamCallError) => {
            finished?.(error as ServiceError);
            if (traced) endRpcSpan(tracing, traced.span, error.code, error.details, false);
            throw fromServiceError(error as ServiceError, peer);
          },
        );
      };
      continue;
    }
    adapter[name] = (request: unknown, options: CallOptionsLite = {}) =>
      new Promise((resolve, reject) => {
        const { metadata, deadline } = callOptions(options);
        const finished = timer(name);
        // With tracing on, the call's client span, its trace context in the metadata as traceparent/tracestate.
        const traced = tracing && startClientSpan(tracing, path, peer);
        if (traced) {
          metadataSetter.set(metadata, 'traceparent', traced.carrier.traceparent);
          if (traced.carrier.tracestate) metadataSetter.set(metadata, 'tracestate', traced.carrier.tracestate);
        }
        const call = method.call(client, request, metadata, { deadline }, (error, response) => {
          finished?.(error);
          if (traced) endRpcSpan(tracing, traced.span, error ? error.code : GrpcStatus.OK, error?.details, false);
          options.signal?.removeEventListener('abort', cancel);
          if (error) reject(fromServiceError(error, peer));
          else resolve(response);
        });
        const cancel = () => call.cancel();
        options.signal?.addEventListener('abort', cancel, { once: true });
        if (options.signal?.aborted) cancel();
      });
  }
  return adapter as PromiseClient<C>;
}
