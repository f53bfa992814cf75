import { createServer, type Server as NetServer, type Socket } from 'node:net';
import {
  Server,
  type handleUnaryCall,
  type Metadata,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { AppError, GrpcStatus, toServiceError } from './errors';
import { grpcServerCredentials, grpcServerMigrationCredentials, peerIdentity, takesBothProtocols, type GrpcTls } from './grpc-tls';
import type { Logger } from './logger';
import { activeTracing } from './tracing';
import { endRpcSpan, startServerSpan } from './tracing-spans';

export const REQUEST_ID_KEY = 'x-request-id';

/** What a handler knows about the call besides its request message. */
export interface CallContext {
  requestId: string;
  metadata: Metadata;
  /** Aborted when the caller cancels or its deadline passes. */
  signal: AbortSignal;
  logger: Logger;
  /**
   * Who called, by the identity in their certificate (grpc-tls.ts): "gateway",
   * "cli", ... Undefined for a call without mutual TLS (GRPC_TLS=off, or a
   * plaintext call during a migration): then nothing about the caller is known.
   */
  readonly caller: string | undefined;
}

/** The generated server interface, as async functions of (request, context). */
export type UnaryImplementation<S> = {
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res>
    ? (request: Req, context: CallContext) => Promise<Res> | Res
    : never;
};

/**
 * A call's context. The signal (an AbortController, which costs more than
 * most handlers) and the request's child logger are made only when a handler
 * asks for them.
 */
class HandlerContext implements CallContext {
  private controller?: AbortController;
  private cancelled = false;
  private child?: Logger;

  constructor(
    readonly requestId: string,
    private readonly call: ServerUnaryCall<unknown, unknown>,
    private readonly parentLogger: Logger,
  ) {
    call.once('cancelled', () => {
      this.cancelled = true;
      this.controller?.abort();
    });
  }

  get metadata(): Metadata {
    return this.call.metadata;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort();
    }
    return this.controller.signal;
  }

  get caller(): string | undefined {
    return peerIdentity(this.call.getAuthContext().sslPeerCertificate);
  }

  get logger(): Logger {
    return (this.child ??= this.requestId ? this.parentLogger.child({ requestId: this.requestId }) : this.parentLogger);
  }
}

/**
 * The one boundary between domain code and gRPC: AppErrors become their status
 * with the code in the trailers; anything else is logged with its stack and
 * becomes INTERNAL with a message that reveals nothing.
 */
export function unaryHandlers<S extends UntypedServiceImplementation>(
  definition: ServiceDefinition,
  implementation: Partial<UnaryImplementation<S>>,
  logger: Logger,
): S {
  const handlers: Record<string, handleUnaryCall<unknown, unknown>> = {};
  // Tracing started before the composition made these handlers (process-main.ts), or never: one test, here, not per call.
  const tracing = activeTracing();
  for (const name of Object.keys(definition)) {
    const method = (implementation as Record<string, (req: unknown, ctx: CallContext) => unknown>)[name];
    if (!method) continue; // grpc-js answers UNIMPLEMENTED for what is not given
    const handler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const requestId = String(call.metadata.get(REQUEST_ID_KEY)[0] ?? '');
      const context = new HandlerContext(requestId, call, logger);
      Promise.resolve()
        .then(() => method.call(implementation, call.request, context))
        .then(
          (response) => callback(null, response),
          (error: unknown) => {
            if (error instanceof AppError) {
              context.logger.debug({ rpc: name, code: error.code }, 'call refused');
              callback(toServiceError(error));
            } else {
              context.logger.error({ rpc: name, err: error }, 'call failed');
              callback({ code: GrpcStatus.INTERNAL, details: 'An internal error occurred.' });
            }
          },
        );
    };
    if (!tracing) {
      handlers[name] = handler;
      continue;
    }
    // The service's span of the call, a child of the caller's client span: both transports reach
    // this handler with the trace context in the call's metadata (call-stream-server.ts puts it there).
    const { path } = definition[name];
    handlers[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const span = startServerSpan(tracing, path, call.metadata);
      if (!span) return handler(call, callback);
      const ended: sendUnaryData<unknown> = (error, value, trailer, flags) => {
        endRpcSpan(tracing, span, error ? (error.code ?? GrpcStatus.UNKNOWN) : GrpcStatus.OK, error?.details, true);
        callback(error, value, trailer, flags);
      };
      tracing.withSpan(span, () => handler(call, ended));
    };
  }
  return handlers as S;
}

/**
 * Plain gRPC clients re-resolve DNS only when a connection ends; ending each
 * one after a few minutes lets them find pods added by a scale-up.
 */
export const MAX_CONNECTION_AGE_MS = 5 * 60_000;
/** Longer than the longest call (a 60 s /playground/timeout and its margin), so a connection's age never cuts a call short. */
export const MAX_CONNECTION_AGE_GRACE_MS = 90_000;
/**
 * A call stream asks its caller to move on well before its connection's age
 * (each stream has a connection of its own), so the stream ends by itself
 * and the connection's age never cuts its calls short.
 */
export const CALL_STREAM_MAX_AGE_MS = MAX_CONNECTION_AGE_MS / 2;

export function createGrpcServer(): Server {
  return new Server({
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
    'grpc.max_connection_age_grace_ms': MAX_CONNECTION_AGE_GRACE_MS,
  });
}

/** Binds and starts; resolves to the bound port (useful with port 0). */
export function bindGrpcServer(server: Server, host: string, port: number, tls: GrpcTls): Promise<number> {
  if (takesBothProtocols(tls)) return listenBothProtocols(server, host, port, tls);
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpcServerCredentials(tls), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
}

/** A TLS record of type handshake: how every TLS connection starts (an HTTP/2 preface starts "PRI"). */
const TLS_HANDSHAKE = 0x16;
/** A connection that has said nothing in this long is no gRPC client's: it is closed. */
const FIRST_BYTE_TIMEOUT_MS = 10_000;

/**
 * The listeners a server took both protocols on, with the connections not
 * yet handed to gRPC (closed with the server) and those handed to it (waited
 * for when it stops).
 */
const migrationListeners = new WeakMap<Server, { listener: NetServer; waiting: Set<Socket>; injected: Set<Socket> }>();

/**
 * GRPC_TLS=accept-tls or send-tls: mutual TLS and plaintext on one port, so
 * callers of either kind reach every replica while a release rolls from one
 * to the other. The port is a plain TCP listener; each connection's first
 * byte says which it is, and the connection goes to grpc-js's server through
 * the injector of that protocol (the byte read is handed back first). Calls
 * are served, counted and drained by the same server either way.
 */
async function listenBothProtocols(server: Server, host: string, port: number, tls: GrpcTls): Promise<number> {
  const credentials = grpcServerMigrationCredentials(tls);
  const mtls = server.createConnectionInjector(credentials.mtls);
  const plaintext = server.createConnectionInjector(credentials.plaintext);
  const waiting = new Set<Socket>();
  const injected = new Set<Socket>();
  const listener = createServer((socket) => {
    waiting.add(socket);
    const give = (to?: typeof mtls) => {
      socket.off('readable', onReadable).off('error', drop).off('timeout', drop).setTimeout(0);
      waiting.delete(socket);
      if (!to) return socket.destroy();
      injected.add(socket);
      socket.once('close', () => injected.delete(socket));
      to.injectConnection(socket);
    };
    const drop = () => give();
    const onReadable = () => {
      const first: Buffer | null = socket.read();
      if (first === null || first.length === 0) return give(); // closed before a byte
      socket.unshift(first);
      give(first[0] === TLS_HANDSHAKE ? mtls : plaintext);
    };
    socket.on('readable', onReadable).once('error', drop).once('timeout', drop).setTimeout(FIRST_BYTE_TIMEOUT_MS);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen({ host, port }, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  migrationListeners.set(server, { listener, waiting, injected });
  return (listener.address() as { port: number }).port;
}

/**
 * The port of a server that takes both protocols stops taking connections;
 * those handed to gRPC drain with the server's sessions. Returns them.
 */
function closeMigrationListener(server: Server): Set<Socket> | undefined {
  const found = migrationListeners.get(server);
  if (!found) return undefined;
  migrationListeners.delete(server);
  found.listener.close();
  for (const socket of found.waiting) socket.destroy();
  found.waiting.clear();
  return found.injected;
}

/**
 * Stops taking calls, lets those in flight finish, and forces the rest after
 * a grace period. A port that takes both protocols is waited for until every
 * connection handed to gRPC has closed, as a bound port's close waits for its
 * connections: grpc-js stops waiting for an injector at once, so a TLS
 * handshake that ended after the shutdown began would otherwise leave a
 * session still taking calls while the process closes its stores and exits
 * (identity answered 500s with its MongoDB client closed in a cluster roll).
 */
export function shutdownGrpcServer(server: Server, graceMs: number): Promise<void> {
  const injected = closeMigrationListener(server);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      for (const socket of injected ?? []) socket.destroy();
      resolve();
    }, graceMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    server.tryShutdown(() => {
      if (!injected || injected.size === 0) return done();
      const check = () => injected.size === 0 && done();
      for (const socket of injected) socket.once('close', () => setImmediate(check));
    });
  });
}

/** At once: every connection closed, the calls on them cancelled (a server whose start failed half-way). */
export function forceShutdownGrpcServer(server: Server): void {
  for (const socket of closeMigrationListener(server) ?? []) socket.destroy();
  server.forceShutdown();
}
