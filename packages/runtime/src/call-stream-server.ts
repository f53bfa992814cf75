import { EventEmitter } from 'node:events';
import { Metadata, type sendUnaryData, type ServerDuplexStream, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { transport } from '@sandbox/contracts';
import { GrpcStatus } from './errors';
import { REQUEST_ID_KEY } from './grpc-server';
import type { Logger } from './logger';

type CallsStream = ServerDuplexStream<transport.CallsRequest, transport.CallsResponse>;
type UnaryHandler = (call: StreamedCall, callback: sendUnaryData<unknown>) => void;

/** A unary method as the stream dispatches it: decode, the service's own handler, encode. */
interface Method {
  decode(bytes: Buffer): unknown;
  encode(message: unknown): Buffer;
  handler: UnaryHandler;
}

export interface CallStreamServerOptions {
  logger: Logger;
  /**
   * How long one stream lives before the server asks its caller to move on
   * (jittered down by up to a quarter), so callers re-resolve and spread over
   * pods added since; shorter than the connection's own max age, so a stream
   * never outlives its connection's grace.
   */
  maxStreamAgeMs: number;
  /** Calls one stream may have in flight before the server stops reading it: HTTP/2 flow control then holds the caller back. */
  maxInFlightPerStream: number;
}

/**
 * What a unary handler sees of a call carried on the stream: the request, the
 * metadata a unary call would carry (the request id), and 'cancelled' when the
 * caller gives up or the deadline passes, exactly as grpc-js gives them.
 */
class StreamedCall extends EventEmitter {
  cancelled = false;
  constructor(
    readonly request: unknown,
    readonly metadata: Metadata,
    private readonly deadline: number,
    private readonly peer: string,
  ) {
    super();
  }
  getDeadline(): number {
    return this.deadline;
  }
  getPeer(): string {
    return this.peer;
  }
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emit('cancelled', 'cancelled');
  }
}

/**
 * The server half of the cheap hop: the CallStreamService implementation,
 * dispatching each call to the same (instrumented) unary handler plain gRPC
 * uses, and replying with the same status, details and trailers.
 */
export class CallStreamServer {
  private readonly methods = new Map<string, Method>();
  private readonly streams = new Set<StreamState>();
  private draining = false;

  constructor(private readonly options: CallStreamServerOptions) {}

  /** Makes a service's unary methods callable over the stream. */
  add(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void {
    for (const [name, method] of Object.entries(definition)) {
      const handler = implementation[name];
      if (!handler || method.requestStream || method.responseStream) continue;
      this.methods.set(method.path, {
        decode: (bytes) => method.requestDeserialize(bytes),
        encode: (message) => method.responseSerialize(message),
        handler: handler as unknown as UnaryHandler,
      });
    }
  }

  implementation(): transport.CallStreamServiceServer {
    return { calls: (stream: CallsStream) => this.open(stream) };
  }

  /** Calls in flight on every stream. */
  get inFlight(): number {
    let count = 0;
    for (const stream of this.streams) count += stream.calls.size;
    return count;
  }

  /** Stops taking calls: every stream is told to drain and ends once its calls are answered. */
  drain(): void {
    this.draining = true;
    for (const stream of this.streams) stream.drain();
  }

  private open(stream: CallsStream): void {
    const state = new StreamState(stream, this.methods, this.options, () => this.streams.delete(state));
    this.streams.add(state);
    if (this.draining) state.drain();
  }
}

/** One caller's stream: its calls in flight, the replies waiting for the next flush, and its drain. */
class StreamState {
  readonly calls = new Map<number, StreamedCall>();
  private replies: transport.Reply[] = [];
  private flushScheduled = false;
  private draining = false;
  private ended = false;
  private paused = false;
  private readonly ageTimer: NodeJS.Timeout;
  private readonly peer: string;

  constructor(
    private readonly stream: CallsStream,
    private readonly methods: Map<string, Method>,
    private readonly options: CallStreamServerOptions,
    private readonly forget: () => void,
  ) {
    this.peer = stream.getPeer();
    // Headers at once: the caller knows the stream reached a serving process.
    stream.sendMetadata(new Metadata());
    const age = options.maxStreamAgeMs * (1 - Math.random() / 4);
    this.ageTimer = setTimeout(() => this.drain(), age);
    this.ageTimer.unref();
    stream.on('data', (batch: transport.CallsRequest) => this.receive(batch));
    // The caller half-closed (it drains this stream): answer what is in flight, then end.
    stream.on('end', () => {
      this.draining = true;
      this.endIfIdle();
    });
    stream.on('cancelled', () => this.finish());
    stream.on('error', () => this.finish());
  }

  drain(): void {
    if (this.draining || this.ended) return;
    this.draining = true;
    clearTimeout(this.ageTimer);
    this.stream.write({ replies: [], draining: true });
    this.endIfIdle();
  }

  private receive(batch: transport.CallsRequest): void {
    for (const id of batch.cancelled) this.calls.get(id)?.cancel();
    for (const call of batch.calls) this.start(call);
    if (!this.paused && this.calls.size >= this.options.maxInFlightPerStream) {
      this.paused = true;
      this.stream.pause();
    }
  }

  private start({ id, method: path, request, timeoutMs, requestId }: transport.Call): void {
    const method = this.methods.get(path);
    if (!method) return this.reply({ id, code: GrpcStatus.UNIMPLEMENTED, response: EMPTY, details: `The method ${path} is not offered.`, trailers: [] });
    let message: unknown;
    try {
      message = method.decode(request);
    } catch {
      return this.reply({ id, code: GrpcStatus.INTERNAL, response: EMPTY, details: 'The request message could not be decoded.', trailers: [] });
    }
    const metadata = new Metadata();
    if (requestId) metadata.set(REQUEST_ID_KEY, requestId);
    const call = new StreamedCall(message, metadata, Date.now() + timeoutMs, this.peer);
    this.calls.set(id, call);
    // The caller answers its own deadline; this only stops the work, as grpc-js does.
    const deadline = setTimeout(() => this.abandon(id, call), timeoutMs);
    const answer: sendUnaryData<unknown> = (error, value, trailer) => {
      clearTimeout(deadline);
      if (this.calls.get(id) !== call) return; // cancelled or past its deadline: nobody waits for it
      this.calls.delete(id);
      if (error) {
        const metadata = (error as { metadata?: Metadata }).metadata ?? trailer;
        this.reply({ id, code: error.code ?? GrpcStatus.UNKNOWN, response: EMPTY, details: error.details ?? (error as Partial<Error>).message ?? '', trailers: trailersOf(metadata) });
      } else {
        let response: Buffer;
        try {
          response = method.encode(value);
        } catch (encodeError) {
          this.options.logger.error({ rpc: path, err: encodeError }, 'response could not be encoded');
          return this.reply({ id, code: GrpcStatus.INTERNAL, response: EMPTY, details: 'An internal error occurred.', trailers: [] });
        }
        this.reply({ id, code: GrpcStatus.OK, response, details: '', trailers: [] });
      }
    };
    try {
      method.handler(call, answer);
    } catch (error) {
      // grpc-js answers UNKNOWN for a handler that throws; so does the stream.
      this.options.logger.error({ rpc: path, err: error }, 'handler threw');
      answer({ code: GrpcStatus.UNKNOWN, details: 'An internal error occurred.' }, null);
    }
  }

  private abandon(id: number, call: StreamedCall): void {
    if (this.calls.get(id) !== call) return;
    call.cancel();
    this.calls.delete(id);
    this.afterCallEnded();
    this.endIfIdle();
  }

  private reply(reply: transport.Reply): void {
    this.replies.push(reply);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    this.afterCallEnded();
  }

  private afterCallEnded(): void {
    if (this.paused && this.calls.size < this.options.maxInFlightPerStream / 2) {
      this.paused = false;
      this.stream.resume();
    }
  }

  /** Every reply made in one turn of the event loop goes out as one message. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.ended || this.replies.length === 0) return;
    const replies = this.replies;
    this.replies = [];
    this.stream.write({ replies, draining: false });
    this.endIfIdle();
  }

  private endIfIdle(): void {
    if (this.draining && !this.ended && this.calls.size === 0 && this.replies.length === 0) {
      this.ended = true;
      this.stream.end();
      this.forget();
    }
  }

  /** The caller closed or vanished: its calls are cancelled, as a unary call's would be. */
  private finish(): void {
    clearTimeout(this.ageTimer);
    for (const call of this.calls.values()) call.cancel();
    this.calls.clear();
    this.ended = true;
    this.forget();
  }
}

const EMPTY = Buffer.alloc(0);

/** The metadata a refusal carries (error-code, retry-after, www-authenticate), as string pairs. */
function trailersOf(metadata: Metadata | undefined): transport.Trailer[] {
  if (!metadata) return [];
  const trailers: transport.Trailer[] = [];
  for (const [key, values] of Object.entries(metadata.toJSON())) {
    if (key.endsWith('-bin')) continue; // none of ours are binary
    for (const value of values) trailers.push({ key, value: String(value) });
  }
  return trailers;
}
