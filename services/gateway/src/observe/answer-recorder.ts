import { appendFileSync } from 'node:fs';
import type { RouteContext } from '../http/context';
import type { Reply } from '../http/reply';

/** One answer as the contract tests read it (test/support/answer-log.ts). */
export interface RecordedAnswer {
  requestId: string;
  method: string;
  /** The path as sent (still percent-encoded), without the query. */
  path: string;
  /** The route row's path pattern; absent when no row matched. */
  route?: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** The body as text; absent for a streamed answer. */
  body?: string;
}

export type AnswerRecorder = (ctx: RouteContext, reply: Reply) => void;

/**
 * A testing aid (RESPONSE_RECORD_FILE): every answer the server writes is
 * appended to the file as one JSON line, so that the integration tests can
 * check each one against the OpenAPI document whichever client made it
 * (Python, a browser, a raw socket). Written synchronously: a line is never
 * lost or reordered, and the cost only exists when the variable is set.
 * Answers hold credentials: never set it outside tests.
 */
export function answerRecorder(file: string): AnswerRecorder {
  return (ctx, reply) => {
    const record: RecordedAnswer = {
      requestId: ctx.requestId,
      method: ctx.method,
      path: ctx.path,
      route: ctx.route?.path,
      status: reply.status,
      headers: reply.headers as RecordedAnswer['headers'],
      body: reply.stream ? undefined : reply.body === undefined ? '' : Buffer.from(reply.body).toString('utf8'),
    };
    appendFileSync(file, `${JSON.stringify(record)}\n`);
  };
}
