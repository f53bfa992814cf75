import { EventEmitter } from 'node:events';
import { Metadata, type sendUnaryData, type ServerDuplexStream, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { transport } from '@sandbox/contracts';
import { batches } from './call-stream-batches';
import { GrpcStatus } from './errors';
import { REQUEST_ID_KEY } from './grpc-server';
import type { Logger } from './logger';

type CallsStream = ServerDuplexStream<transport.CallsRequest, transport.CallsResponse>;
/** grpc-js does not export the type by name. */
type AuthContext = ReturnType<CallsStream['getAuthContext']>;
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
    private readonly authContext: AuthContext,
  ) {
    super();
  }
  /** The stream's: every call on it comes from the certificate that opened it. */
  getAuthContext(): AuthContext {
    return this.authContext;
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

  /**
   * Stops taking calls: every stream is told to drain and ends once its calls
   * are answered. Calls that arrive after that are not started but handed
   * back (notStarted), for the caller to send to another replica.
   */
  drain(): void {
    this.draining = true;
    for (const stream of this.streams) stream.drain({ shuttingDown: true });
  }

  private open(stream: CallsStream): void {
    if (this.draining) {
      // Shutting down: a stream that opens now is refused before its headers, so the caller knows that none of the
      // calls it wrote reached a server and sends them to another replica, or fails them UNAVAILABLE (a 503). Taken
      // and told to drain, it would serve whatever the caller wrote before it read that: new work after SIGTERM.
      stream.emit('error', { code: GrpcStatus.UNAVAILABLE, details: 'This replica is shutting down.' });
      return;
    }
    const state = new StreamState(stream, this.methods, this.options, () => this.streams.delete(state));
    this.streams.add(state);
  }
}

/**
 * One caller's stream: its calls in flight (at most maxInFlightPerStream; the
 * rest of what was read waits here, and the stream is not read further until
 * calls end, so HTTP/2 flow control holds the caller back), the replies
 * waiting for the next flush, and its drain.
 */
class StreamState {
  readonly calls = new Map<number, StreamedCall>();
  /** Calls read but not started, because maxInFlightPerStream are running. */
  private backlog: transport.Call[] = [];
  private pumping = false;
  private replies: transport.Reply[] = [];
  private flushScheduled = false;
  private draining = false;
  /** The replica is shutting down: calls not started yet are handed back instead (drain). */
  private refusing = false;
  /** The caller half-closed: nothing more will come, so the stream may end once its calls are answered. */
  private callerDone = false;
  private ended = false;
  private paused = false;
  private readonly ageTimer: NodeJS.Timeout;
  private drainTimer?: NodeJS.Timeout;
  private readonly peer: string;
  private readonly authContext: AuthContext;

  constructor(
    private readonly stream: CallsStream,
    private readonly methods: Map<string, Method>,
    private readonly options: CallStreamServerOptions,
    private readonly forget: () => void,
  ) {
    this.peer = stream.getPeer();
    this.authContext = stream.getAuthContext();
    // Headers at once: the caller knows the stream reached a serving process.
    stream.sendMetadata(new Metadata());
    const age = options.maxStreamAgeMs * (1 - Math.random() / 4);
    this.ageTimer = setTimeout(() => this.drain(), age);
    this.ageTimer.unref();
    stream.on('data', (batch: transport.CallsRequest) => this.receive(batch));
    // The caller half-closed (it drains this stream): answer what is in flight, then end.
    stream.on('end', () => {
      this.callerDone = true;
      this.draining = true;
      this.endIfIdle();
    });
    stream.on('cancelled', () => this.finish());
    stream.on('error', () => this.finish());
  }

  /**
   * Asks the caller to send new calls elsewhere. Calls it sent before it read
   * this are still on their way, so the stream ends only once the caller
   * half-closes (it does when nothing of its own is in flight), or after
   * DRAIN_WAIT_MS for a caller that never does. When the stream only reached
   * its age, those calls are served; when the replica is shutting down, they
   * are handed back unstarted (start), so that no new work begins after
   * SIGTERM while the caller has another replica to send it to, or a 503.
   */
  drain({ shuttingDown = false } = {}): void {
    if (shuttingDown) this.refusing = true;
    if (this.draining || this.ended) return;
    this.draining = true;
    clearTimeout(this.ageTimer);
    this.stream.write({ replies: [], draining: true });
    this.drainTimer = setTimeout(() => {
      this.callerDone = true;
      this.endIfIdle();
    }, DRAIN_WAIT_MS);
    this.drainTimer.unref();
  }

  private receive(batch: transport.CallsRequest): void {
    for (const id of batch.cancelled) this.cancel(id);
    for (const call of batch.calls) this.backlog.push(call);
    this.pump();
  }

  private cancel(id: number): void {
    const running = this.calls.get(id);
    if (running) return running.cancel();
    const waiting = this.backlog.findIndex((call) => call.id === id);
    if (waiting >= 0) this.backlog.splice(waiting, 1);
  }

  /** Starts waiting calls while fewer than the bound run; reads on only when none waits. */
  private pump(): void {
    // A call refused at once replies synchronously, which pumps again: the outer loop carries on instead.
    if (this.pumping) return;
    this.pumping = true;
    const { maxInFlightPerStream } = this.options;
    let started = 0;
    while (this.calls.size < maxInFlightPerStream && started < this.backlog.length) this.start(this.backlog[started++]);
    if (started > 0) this.backlog = started === this.backlog.length ? [] : this.backlog.slice(started);
    this.pumping = false;
    const shouldPause = this.backlog.length > 0;
    if (shouldPause !== this.paused) {
      this.paused = shouldPause;
      if (shouldPause) this.stream.pause();
      else this.stream.resume();
    }
  }

  private start({ id, method: path, request, timeoutMs, requestId, traceparent, tracestate }: transport.Call): void {
    if (this.refusing)
      return this.reply({ id, code: GrpcStatus.UNAVAILABLE, response: EMPTY, details: 'This replica is shutting down.', trailers: [], notStarted: true });
    const method = this.methods.get(path);
    if (!method)
      return this.reply({
        id,
        code: GrpcStatus.UNIMPLEMENTED,
        response: EMPTY,
        details: `The method ${path} is not offered.`,
        trailers: [],
        notStarted: false,
      });
    let message: unknown;
    try {
      message = method.decode(request);
    } catch {
      return this.reply({
        id,
        code: GrpcStatus.INTERNAL,
        response: EMPTY,
        details: 'The request message could not be decoded.',
        trailers: [],
        notStarted: false,
      });
    }
    const metadata = new Metadata();
    if (requestId) metadata.set(REQUEST_ID_KEY, requestId);
    // The caller's trace context, where a unary call carries it, for the handler's server span (grpc-server.ts). Empty when the caller does not trace.
    if (traceparent) {
      metadata.set('traceparent', traceparent);
      if (tracestate) metadata.set('tracestate', tracestate);
    }
    const call = new StreamedCall(message, metadata, Date.now() + timeoutMs, this.peer, this.authContext);
    this.calls.set(id, call);
    // The caller answers its own deadline; this only stops the work, as grpc-js does.
    const deadline = setTimeout(() => this.abandon(id, call), timeoutMs);
    const answer: sendUnaryData<unknown> = (error, value, trailer) => {
      clearTimeout(deadline);
      if (this.calls.get(id) !== call) return; // cancelled or past its deadline: nobody waits for it
      this.calls.delete(id);
      if (error) {
        const metadata = (error as { metadata?: Metadata }).metadata ?? trailer;
        this.reply({
          id,
          code: error.code ?? GrpcStatus.UNKNOWN,
          response: EMPTY,
          details: error.details ?? (error as Partial<Error>).message ?? '',
          trailers: trailersOf(metadata),
          notStarted: false,
        });
      } else {
        let response: Buffer;
        try {
          response = method.encode(value);
        } catch (encodeError) {
          this.options.logger.error({ rpc: path, err: encodeError }, 'response could not be encoded');
          return this.reply({ id, code: GrpcStatus.INTERNAL, response: EMPTY, details: 'An internal error occurred.', trailers: [], notStarted: false });
        }
        this.reply({ id, code: GrpcStatus.OK, response, details: '', trailers: [], notStarted: false });
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
    if (this.backlog.length > 0) this.pump();
    else this.endIfIdle();
  }

  /** Every reply made in one turn of the event loop goes out together (in messages of at most MAX_BATCH_BYTES). */
  private flush(): void {
    this.flushScheduled = false;
    if (this.ended || this.replies.length === 0) return;
    const replies = this.replies;
    this.replies = [];
    for (const batch of batches(replies, (reply) => reply.response.length + reply.details.length)) this.stream.write({ replies: batch, draining: false });
    this.endIfIdle();
  }

  private endIfIdle(): void {
    if (!this.draining || !this.callerDone || this.ended || this.calls.size > 0 || this.backlog.length > 0 || this.replies.length > 0) return;
    clearTimeout(this.drainTimer);
    this.ended = true;
    this.stream.end();
    this.forget();
  }

  /** The caller closed or vanished: its calls are cancelled, as a unary call's would be. */
  private finish(): void {
    clearTimeout(this.ageTimer);
    clearTimeout(this.drainTimer);
    for (const call of this.calls.values()) call.cancel();
    this.calls.clear();
    this.backlog = [];
    this.ended = true;
    this.forget();
  }
}

/** How long a draining stream waits for its caller to half-close before it ends once idle anyway. */
const DRAIN_WAIT_MS = 10_000;
const EMPTY = Buffer.alloc(0);

/** The metadata a refusal carries (error-code, retry-after, www-authenticate-bin), as pairs: binary values in base64, as on the wire. */
function trailersOf(metadata: Metadata | undefined): transport.Trailer[] {
  if (!metadata) return [];
  const trailers: transport.Trailer[] = [];
  for (const [key, values] of Object.entries(metadata.toJSON())) {
    for (const value of values) trailers.push({ key, value: Buffer.isBuffer(value) ? value.toString('base64') : value });
  }
  return trailers;
}
