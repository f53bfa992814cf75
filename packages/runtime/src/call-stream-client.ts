import { Metadata, type ChannelCredentials, type ChannelOptions, type ClientDuplexStream, type StatusObject } from '@grpc/grpc-js';
import { transport } from '@sandbox/contracts';
import { batches } from './call-stream-batches';
import type { CancelSignal } from './cancellation';
import { GrpcStatus } from './errors';
import { resolveTarget, type Resolve } from './target-resolution';
import type { TraceCarrier } from './tracing';

/** How a call carried on a stream failed: the shape of a grpc-js ServiceError, so the one translation (fromServiceError) serves both transports. */
export interface StreamCallError {
  code: GrpcStatus;
  details: string;
  metadata: Metadata;
}

export interface CallStreamPoolOptions {
  /** Channel options of every lane's connection (reconnect backoff, keepalive). */
  channelOptions: ChannelOptions;
  /** Every lane's credentials: mutual TLS with the service's identity checked, or none (grpc-tls.ts). */
  credentials: ChannelCredentials;
  /** Turns a host into its addresses; DNS by default, a test may give loopback addresses. */
  resolve?: Resolve;
  /** How often a DNS target is looked up again, besides whenever a lane drains or fails. */
  refreshMs?: number;
  /** Calls a lane holds while the service is not reading: beyond it, a call fails UNAVAILABLE at once instead of queueing without bound. */
  maxQueuedPerLane?: number;
}

/** A call waiting for its reply. */
interface Pending {
  resolve(response: Buffer): void;
  reject(error: StreamCallError): void;
  signal?: CancelSignal;
  /** The message, kept until the reply: a call that never reached a server may be sent on another lane. */
  call: transport.Call;
  deadlineAt: number;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
}

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 1000;

/**
 * The caller half of the cheap hop: every replica of one service (each
 * address the target resolves to) gets one lane, a long-lived CallStreamService
 * stream on its own connection; calls go round robin over the lanes that are
 * open, each call a message, gathered with the others of the same turn of the
 * event loop into one write. A lane that fails takes only its own calls in
 * flight with it (UNAVAILABLE, at once); a lane that drains (its server is
 * stopping, or the stream reached its age) takes no new calls and is replaced.
 */
export class CallStreamPool {
  private readonly lanes = new Map<string, Lane>();
  /** The lanes as an array, rebuilt when they change (rarely), so picking one allocates nothing. */
  private laneList: Lane[] = [];
  /** Addresses the target resolved to last, and when each may be tried again after a failure. */
  private addresses: string[] = [];
  private readonly retryAt = new Map<string, { at: number; backoffMs: number; timer?: NodeJS.Timeout }>();
  private next = 0;
  private resolving: Promise<void> | undefined;
  private lastRefreshAt = 0;
  private resolved = false;
  private closed = false;
  private readonly refreshTimer?: NodeJS.Timeout;
  private readonly resolveAddresses: () => Promise<string[]> | string[];

  constructor(
    target: string,
    private readonly options: CallStreamPoolOptions,
  ) {
    const { addresses, dynamic } = resolveTarget(target, options.resolve);
    this.resolveAddresses = addresses;
    if (dynamic) {
      this.refreshTimer = setInterval(() => void this.refresh(), options.refreshMs ?? 30_000);
      this.refreshTimer.unref();
    }
  }

  /**
   * Sends one call; resolves to the encoded response, or rejects as the unary call would have.
   * `trace` is the W3C trace context of the caller's client span (tracing on), carried in the Call message.
   */
  call(
    method: string,
    request: Buffer,
    timeoutMs: number,
    requestId: string | undefined,
    signal: CancelSignal | undefined,
    trace?: TraceCarrier,
  ): Promise<Buffer> {
    if (!this.resolved) return this.refresh().then(() => this.call(method, request, timeoutMs, requestId, signal, trace));
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(failure(GrpcStatus.CANCELLED, 'Cancelled before it was sent.'));
      const call = {
        id: 0,
        method,
        request,
        timeoutMs,
        requestId: requestId ?? '',
        traceparent: trace?.traceparent ?? '',
        tracestate: trace?.tracestate ?? '',
      };
      this.dispatch({ resolve, reject, signal, call, deadlineAt: Date.now() + timeoutMs });
    });
  }

  /** Puts a call on a lane, or fails it UNAVAILABLE at once when no lane can take it. */
  private dispatch(pending: Pending): void {
    const lane = this.pick();
    if (!lane) {
      // Perhaps the target names other replicas by now (or its first lookup failed): look again, at most once a second.
      if (Date.now() - this.lastRefreshAt > MAX_BACKOFF_MS) void this.refresh();
      pending.reject(failure(GrpcStatus.UNAVAILABLE, 'No replica of the service can be reached.'));
    } else if (!lane.adopt(pending)) pending.reject(failure(GrpcStatus.UNAVAILABLE, 'The service is not keeping up: too many calls are waiting for it.'));
  }

  /** Calls in flight on every lane (for tests and metrics). */
  get inFlight(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.pending.size;
    return count;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.refreshTimer);
    for (const retry of this.retryAt.values()) clearTimeout(retry.timer);
    for (const lane of this.lanes.values()) lane.close(failure(GrpcStatus.CANCELLED, 'The client was closed.'));
    this.lanes.clear();
    this.laneList = [];
  }

  /**
   * Round robin over open lanes; when none is open yet, over those still
   * connecting (a call waits for its connection, as grpc-js waits while
   * CONNECTING), so a cold burst spreads too.
   */
  private pick(): Lane | undefined {
    const lanes = this.laneList;
    let fallback = -1;
    for (let i = 0; i < lanes.length; i++) {
      const at = (this.next + i) % lanes.length;
      const lane = lanes[at];
      if (lane.full) continue;
      if (lane.state === 'open') {
        this.next = at + 1;
        return lane;
      }
      if (lane.state === 'opening' && fallback < 0) fallback = at;
    }
    if (fallback < 0) return undefined;
    this.next = fallback + 1;
    return lanes[fallback];
  }

  /** Looks the target up again and brings the lanes in line: new addresses get a lane, vanished ones drain. */
  private refresh(): Promise<void> {
    this.resolving ??= (async () => {
      this.lastRefreshAt = Date.now();
      try {
        this.addresses = await this.resolveAddresses();
      } catch {
        // Keep what we had: a DNS blip must not empty the pool.
      } finally {
        this.resolved = true;
        this.resolving = undefined;
      }
      if (this.closed) return;
      for (const address of this.addresses) this.ensureLane(address);
      for (const [address, lane] of this.lanes) if (!this.addresses.includes(address)) lane.drain();
    })();
    return this.resolving;
  }

  private ensureLane(address: string): void {
    const existing = this.lanes.get(address);
    if (this.closed || (existing && existing.state !== 'draining' && existing.state !== 'closed')) return;
    const retry = this.retryAt.get(address);
    if (retry && retry.at > Date.now()) return;
    const lane = new Lane(address, this.options, {
      opened: () => this.retryAt.delete(address),
      draining: () => {
        this.forget(address, lane);
        void this.refresh();
      },
      failed: (everOpened) => {
        this.forget(address, lane);
        this.backOff(address, everOpened);
      },
      // Calls that never reached a server are safe to send elsewhere (gRPC's transparent retry).
      resend: (unsent) => {
        for (const pending of unsent) this.dispatch(pending);
      },
    });
    this.lanes.set(address, lane);
    this.laneList = [...this.lanes.values()];
  }

  private forget(address: string, lane: Lane): void {
    if (this.lanes.get(address) !== lane) return;
    this.lanes.delete(address);
    this.laneList = [...this.lanes.values()];
  }

  /** A lane that failed is tried again in the background, sooner if it had been open (a restart), later each time it fails to open. */
  private backOff(address: string, everOpened: boolean): void {
    if (this.closed) return;
    const previous = this.retryAt.get(address);
    const backoffMs = everOpened || !previous ? FIRST_BACKOFF_MS : Math.min(previous.backoffMs * 2, MAX_BACKOFF_MS);
    const timer = setTimeout(() => {
      this.retryAt.set(address, { at: 0, backoffMs });
      void this.refresh();
    }, backoffMs);
    timer.unref();
    this.retryAt.set(address, { at: Date.now() + backoffMs, backoffMs, timer });
  }
}

type LaneState = 'opening' | 'open' | 'draining' | 'closed';

interface LaneEvents {
  opened(): void;
  draining(): void;
  failed(everOpened: boolean): void;
  /** Calls no server can have seen, taken off a lane whose stream ended. */
  resend(unsent: Pending[]): void;
}

/** One stream to one replica, on a connection of its own (so a stream never outlives its connection's max age). */
class Lane {
  state: LaneState = 'opening';
  readonly pending = new Map<number, Pending>();
  private readonly client: transport.CallStreamServiceClient;
  private readonly stream: ClientDuplexStream<transport.CallsRequest, transport.CallsResponse>;
  private outgoing: transport.Call[] = [];
  private cancelled: number[] = [];
  private flushScheduled = false;
  private congested = false;
  /** This side of the stream is closed (draining, nothing left to send or wait for). */
  private halfClosed = false;
  private nextId = 1;
  private everOpened = false;

  constructor(
    readonly address: string,
    private readonly options: CallStreamPoolOptions,
    private readonly events: LaneEvents,
  ) {
    this.client = new transport.CallStreamServiceClient(address, options.credentials, {
      ...options.channelOptions,
      'grpc.use_local_subchannel_pool': 1,
    });
    this.stream = this.client.calls();
    this.stream.on('metadata', () => {
      if (this.state !== 'opening') return;
      this.state = 'open';
      this.everOpened = true;
      events.opened();
    });
    this.stream.on('data', (batch: transport.CallsResponse) => this.receive(batch));
    this.stream.on('drain', () => {
      this.congested = false;
      this.schedule();
    });
    this.stream.on('error', () => undefined); // the status below says everything
    this.stream.on('status', (status: StatusObject) => this.ended(status));
  }

  /** Whether the lane's queue is at its bound, so the pool picks another. */
  get full(): boolean {
    return this.outgoing.length >= (this.options.maxQueuedPerLane ?? 1024);
  }

  /** Takes a call (a new one, or one another lane could not send): false when the lane's queue is full. */
  adopt(pending: Pending): boolean {
    if (this.full) return false;
    const id = this.nextId;
    this.nextId = this.nextId >= 0xffffffff ? 1 : this.nextId + 1;
    const timeoutMs = Math.max(1, pending.deadlineAt - Date.now());
    pending.call = { ...pending.call, id, timeoutMs };
    pending.timer = setTimeout(() => this.giveUp(id, failure(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded')), timeoutMs);
    if (pending.signal) {
      pending.onAbort = () => this.giveUp(id, failure(GrpcStatus.CANCELLED, 'Cancelled on client'));
      pending.signal.addEventListener('abort', pending.onAbort, { once: true });
    }
    this.pending.set(id, pending);
    this.outgoing.push(pending.call);
    this.schedule();
    return true;
  }

  /** The server is told to stop (its deadline or the caller's cancellation), as a unary call's RST_STREAM would. */
  private giveUp(id: number, error: StreamCallError): void {
    const pending = this.settle(id);
    if (!pending) return;
    pending.reject(error);
    const queued = this.outgoing.findIndex((call) => call.id === id);
    if (queued >= 0) this.outgoing.splice(queued, 1);
    else this.cancelled.push(id);
    this.schedule();
  }

  /** Takes no new calls; sends what is queued, waits for its replies, then half-closes (and the server ends the stream). */
  drain(): void {
    if (this.state === 'closed' || this.state === 'draining') return;
    this.state = 'draining';
    this.events.draining();
    this.flush();
  }

  close(error: StreamCallError): void {
    this.failAll(error);
    this.state = 'closed';
    this.stream.cancel();
    this.client.close();
  }

  private schedule(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** Everything sent in one turn of the event loop goes together (in messages of at most MAX_BATCH_BYTES); a congested stream keeps it until 'drain'. */
  private flush(): void {
    this.flushScheduled = false;
    if (!this.halfClosed && !this.congested && this.state !== 'closed' && (this.outgoing.length > 0 || this.cancelled.length > 0)) {
      let cancelled = this.cancelled;
      const runs = this.outgoing.length > 0 ? batches(this.outgoing, (call) => call.request.length + call.method.length) : [[]];
      this.outgoing = [];
      this.cancelled = [];
      for (const calls of runs) {
        if (!this.stream.write({ calls, cancelled })) this.congested = true;
        cancelled = [];
      }
    }
    this.endIfDone();
  }

  /** A draining lane half-closes once nothing of it is in flight or waiting to be sent (cancellations included). */
  private endIfDone(): void {
    if (this.state !== 'draining' || this.halfClosed || this.congested || this.pending.size > 0 || this.outgoing.length > 0 || this.cancelled.length > 0)
      return;
    this.halfClosed = true;
    this.stream.end();
  }

  private receive(batch: transport.CallsResponse): void {
    const handedBack: Pending[] = [];
    for (const reply of batch.replies) {
      const pending = this.settle(reply.id);
      if (!pending) continue; // given up already
      if (reply.notStarted) handedBack.push(pending);
      else if (reply.code === GrpcStatus.OK) pending.resolve(reply.response);
      else {
        const metadata = new Metadata();
        for (const { key, value } of reply.trailers) metadata.add(key, key.endsWith('-bin') ? Buffer.from(value, 'base64') : value);
        pending.reject({ code: reply.code, details: reply.details, metadata });
      }
    }
    if (batch.draining) this.drain();
    else this.endIfDone();
    // A server shutting down did not start these: they go elsewhere, as calls that never reached a server do
    // (ended). The lane takes no more (its drain notice came first; this holds even if it had not).
    if (handedBack.length > 0) {
      this.drain();
      this.events.resend(handedBack);
    }
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    return pending;
  }

  /**
   * The stream ended. Calls still queued here, or all of them when the stream
   * never opened, reached no server: they go back to the pool. The rest fail
   * as their connection did (UNAVAILABLE when the replica vanished).
   */
  private ended(status: StatusObject): void {
    const wasDraining = this.state === 'draining';
    this.state = 'closed';
    this.client.close();
    const queued = new Set(this.outgoing.map((call) => call.id));
    const unsent: Pending[] = [];
    for (const id of [...this.pending.keys()]) {
      if (this.everOpened && !queued.has(id)) continue;
      const pending = this.settle(id)!;
      delete pending.timer;
      unsent.push(pending);
    }
    const code = status.code === GrpcStatus.OK || status.code === GrpcStatus.CANCELLED ? GrpcStatus.UNAVAILABLE : status.code;
    this.failAll(failure(code, status.details || 'The stream to the service ended.'));
    if (!wasDraining) this.events.failed(this.everOpened);
    this.events.resend(unsent);
  }

  private failAll(error: StreamCallError): void {
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
    this.outgoing = [];
    this.cancelled = [];
  }
}

function failure(code: GrpcStatus, details: string): StreamCallError {
  return { code, details, metadata: new Metadata() };
}
