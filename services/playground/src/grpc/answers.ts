import type { playground } from '@sandbox/contracts';
import { AppError, GrpcStatus, HttpRefusal, type CallContext } from '@sandbox/runtime';
import type { Sleep } from '../domain/delay';
import { inboundOf, refusalAnswer, type Answer, type Inbound } from '../domain/http';
import type { Planned } from '../domain/respond';

type Handler = (request: { http?: playground.HttpRequest }, context: CallContext) => Promise<{ http: playground.HttpResponse }>;

/**
 * Decode the HTTP request, call one domain function, encode its answer. An
 * HttpRefusal (a 4xx with no gRPC equivalent, e.g. 413) becomes the answer
 * itself, in the project's error shape with the call's request id; every
 * other error goes on to the runtime's one boundary (AppError -> its status,
 * anything else -> INTERNAL).
 */
export function answered(handle: (http: Inbound, context: CallContext) => Answer | Promise<Answer>): Handler {
  return async (request, context) => {
    try {
      return { http: await handle(inboundOf(request.http), context) };
    } catch (error) {
      if (error instanceof HttpRefusal) return { http: refusalAnswer(error, context.requestId) };
      throw error;
    }
  };
}

/** Waits the planned delay, stopping at once when the call is cancelled (the HTTP client went away) or its deadline passes. */
export function delayed(plan: (http: Inbound) => Planned, sleep: Sleep) {
  return async (http: Inbound, context: CallContext): Promise<Answer> => {
    const { delay, answer } = plan(http);
    if (delay.appliedMs > 0) {
      const started = Date.now();
      try {
        await sleep(delay.appliedMs, context.signal);
      } catch (error) {
        if (!context.signal.aborted) throw error;
        // Nobody is listening any more: the wait ends here, and says so in the log (an operator sees abandoned waits).
        context.logger.info(
          { requestId: context.requestId, delayMs: delay.appliedMs, waitedMs: Date.now() - started },
          'delay ended early: the call was cancelled',
        );
        throw new AppError(GrpcStatus.CANCELLED, 'cancelled', `The call was cancelled during its ${delay.appliedMs} ms delay.`);
      }
    }
    return answer;
  };
}
