import {
  Server,
  ServerCredentials,
  type handleUnaryCall,
  type Metadata,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { AppError, GrpcStatus, toServiceError } from './errors';
import type { Logger } from './logger';

export const REQUEST_ID_KEY = 'x-request-id';

/** What a handler knows about the call besides its request message. */
export interface CallContext {
  requestId: string;
  metadata: Metadata;
  /** Aborted when the caller cancels or its deadline passes. */
  signal: AbortSignal;
  logger: Logger;
}

/** The generated server interface, as async functions of (request, context). */
export type UnaryImplementation<S> = {
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res>
    ? (request: Req, context: CallContext) => Promise<Res> | Res
    : never;
};

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
  for (const name of Object.keys(definition)) {
    const method = (implementation as Record<string, (req: unknown, ctx: CallContext) => unknown>)[name];
    if (!method) continue; // grpc-js answers UNIMPLEMENTED for what is not given
    handlers[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const requestId = String(call.metadata.get(REQUEST_ID_KEY)[0] ?? '');
      const controller = new AbortController();
      call.once('cancelled', () => controller.abort());
      const context: CallContext = {
        requestId,
        metadata: call.metadata,
        signal: controller.signal,
        logger: requestId ? logger.child({ requestId }) : logger,
      };
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
  }
  return handlers as S;
}

export function createGrpcServer(): Server {
  return new Server({
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    'grpc.keepalive_permit_without_calls': 1,
    // Clients re-resolve DNS only when a connection ends; ending each one after
    // a few minutes lets callers find pods added by a scale-up.
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
  });
}

/** Binds and starts; resolves to the bound port (useful with port 0). */
export function bindGrpcServer(server: Server, host: string, port: number): Promise<number> {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
}

/** Stops taking calls, lets those in flight finish, and forces the rest after a grace period. */
export function shutdownGrpcServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
