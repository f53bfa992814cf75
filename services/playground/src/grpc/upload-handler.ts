import type { handleClientStreamingCall, ServerErrorResponse } from '@grpc/grpc-js';
import type { playground } from '@sandbox/contracts';
import { AppError, GrpcStatus, HttpRefusal, invalidArgument, REQUEST_ID_KEY, toServiceError, type Logger } from '@sandbox/runtime';
import { headerValue } from '../domain/headers';
import { refusalAnswer, type Answer } from '../domain/http';
import { MultipartReader, uploadAnswer, UPLOAD_LIMITS, type UploadLimits } from '../domain/upload';

type UploadCall = Parameters<handleClientStreamingCall<playground.UploadRequest, playground.UploadResponse>>[0];

/**
 * Upload, client-streaming: the first message carries the HTTP request
 * (headers, no body), every later one the next bytes of the body. The body is
 * parsed as it arrives and never held: the call is paused while the parser
 * catches up, so memory stays flat however large the upload. The first limit
 * crossed answers 413 at once and ends the call (the caller stops sending);
 * the error boundary is the runtime's: an AppError becomes its status with the
 * code in the trailers, anything else INTERNAL with a safe message, logged.
 */
export function uploadHandler(
  logger: Logger,
  limits: UploadLimits = UPLOAD_LIMITS,
): handleClientStreamingCall<playground.UploadRequest, playground.UploadResponse> {
  return (call: UploadCall, callback) => {
    const requestId = String(call.metadata.get(REQUEST_ID_KEY)[0] ?? '');
    const log = requestId ? logger.child({ requestId }) : logger;
    let reader: MultipartReader | undefined;
    let done = false;

    const finish = (error: unknown, answer?: Answer) => {
      if (done) return;
      done = true;
      reader?.abort();
      call.off('data', onData);
      // Nothing more is read: whatever the caller still sends is dropped with the call.
      call.pause();
      if (answer) callback(null, { http: answer });
      else if (error instanceof HttpRefusal) callback(null, { http: refusalAnswer(error, requestId) });
      else if (error instanceof AppError) {
        log.debug({ rpc: 'upload', code: error.code }, 'call refused');
        callback(toServiceError(error) as ServerErrorResponse);
      } else {
        log.error({ rpc: 'upload', err: error }, 'call failed');
        callback({ code: GrpcStatus.INTERNAL, details: 'An internal error occurred.' });
      }
    };

    const onData = (message: playground.UploadRequest) => {
      if (done) return;
      try {
        const part = message.part;
        if (!reader) {
          if (part?.$case !== 'http')
            throw invalidArgument('invalid_request', 'The first message of an upload must carry the HTTP request, before any chunk of its body.');
          reader = MultipartReader.open(headerValue(part.value.headers, 'content-type'), limits);
          reader.result.then(
            (report) => finish(null, uploadAnswer(report)),
            (error: unknown) => finish(error),
          );
          if (part.value.body.length > 0) write(reader, part.value.body);
        } else if (part?.$case === 'chunk') {
          write(reader, part.value);
        } else {
          throw invalidArgument('invalid_request', 'Only the first message of an upload carries the HTTP request; every later one carries a chunk.');
        }
      } catch (error) {
        finish(error);
      }
    };

    const write = (into: MultipartReader, chunk: Buffer) => {
      if (into.write(chunk)) return;
      call.pause();
      void into.drained().then(() => {
        if (!done) call.resume();
      });
    };

    call.on('data', onData);
    call.on('end', () => {
      if (done) return;
      if (!reader) finish(invalidArgument('invalid_request', 'The upload ended before its HTTP request arrived.'));
      else reader.end();
    });
    call.on('cancelled', () => {
      // The HTTP client went away: stop parsing; there is no one to answer.
      done = true;
      reader?.abort();
    });
    call.on('error', (error: unknown) => {
      if (done) return;
      log.debug({ rpc: 'upload', err: error }, 'upload stream failed');
      done = true;
      reader?.abort();
    });
  };
}
