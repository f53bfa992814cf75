import { closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RecordedAnswer } from '../../services/gateway/src/observe/answer-recorder';
import { offlineOpenApiDocument, routeTable } from '../../services/gateway/src/openapi/offline-document';
import { OpenApiChecker } from './openapi-check';

/**
 * Every answer a running system's gateway wrote (RESPONSE_RECORD_FILE, see
 * services/gateway/src/observe/answer-recorder.ts), read a batch at a time.
 * startSystem gives each system one; test/contract-setup.ts checks each
 * batch against the system's own OpenAPI document after every test, so an
 * answer that breaks the contract fails the test that caused it, whichever
 * client sent the request.
 */
export class AnswerLog {
  readonly file = join(tmpdir(), `answers-${process.pid}-${randomBytes(6).toString('hex')}.ndjson`);
  private offset = 0;
  private carry = '';

  /** The answers written since the last call. */
  take(): RecordedAnswer[] {
    if (!existsSync(this.file)) return [];
    const size = statSync(this.file).size;
    if (size <= this.offset) return [];
    const buffer = Buffer.alloc(size - this.offset);
    const fd = openSync(this.file, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, this.offset);
    } finally {
      closeSync(fd);
    }
    this.offset = size;
    const text = this.carry + buffer.toString('utf8');
    const lines = text.split('\n');
    this.carry = lines.pop() ?? '';
    return lines.filter(Boolean).map((line) => JSON.parse(line) as RecordedAnswer);
  }

  remove(): void {
    rmSync(this.file, { force: true });
  }
}

const CLIENT_WENT_AWAY = 499;

/** The systems of this test file whose answers are checked, by base URL. */
const watched = new Map<string, { log: AnswerLog; checker?: Promise<OpenApiChecker>; operatorChecker?: OpenApiChecker }>();

export function watchAnswers(baseUrl: string, log: AnswerLog): void {
  watched.set(baseUrl, { log });
}

export function unwatchAnswers(baseUrl: string): void {
  watched.get(baseUrl)?.log.remove();
  watched.delete(baseUrl);
}

/** `METHOD /pattern` of every operation the document describes: each row, with each method it serves. */
let described: Set<string> | undefined;
function describedOperations(): Set<string> {
  described ??= new Set(routeTable().flatMap((row) => row.methods.map((method) => `${method} ${row.path}`)));
  return described;
}

/**
 * The patterns of the operator-only rows: only an operator's document
 * describes them (docs/operators.md), and only an operator gets their
 * answers (anyone else gets an unknown path's 404, recorded without a row).
 */
let operatorOnly: Set<string> | undefined;
function operatorOnlyRows(): Set<string> {
  operatorOnly ??= new Set(
    routeTable()
      .filter((row) => row.operatorOnly)
      .map((row) => row.path),
  );
  return operatorOnly;
}

/**
 * What is wrong with the answers written since the last check, by each
 * system's own document: one line per answer that does not conform. Answers
 * of no row (a 404 of no route) and of a method the row does not serve (405,
 * OPTIONS, HEAD) are not operations of the document, so are not checked.
 */
export async function answersBreakingTheContract(): Promise<string[]> {
  const problems: string[] = [];
  for (const [baseUrl, entry] of watched) {
    // A streamed answer's body is not recorded (it may be 25 MiB): those are left to their own tests.
    // 499 is what the log says of a request whose client left: nobody receives it.
    const answers = entry.log
      .take()
      .filter((a) => a.route !== undefined && a.body !== undefined && a.status !== CLIENT_WENT_AWAY && describedOperations().has(`${a.method} ${a.route}`));
    if (!answers.length) continue;
    entry.checker ??= OpenApiChecker.fetch(baseUrl);
    const checker = await entry.checker;
    for (const answer of answers) {
      // The served operator's document needs an operator's session to fetch; it is built from the same rows as this one.
      const forOperators = operatorOnlyRows().has(answer.route!);
      if (forOperators) entry.operatorChecker ??= new OpenApiChecker(offlineOpenApiDocument(baseUrl, { operator: true }));
      const found = (forOperators ? entry.operatorChecker! : checker).problems(answer.method, answer.path, {
        status: answer.status,
        headers: answer.headers,
        body: answer.body!,
      });
      if (found.length) problems.push(`${answer.method} ${answer.path} -> ${answer.status} (request ${answer.requestId}): ${found.join('; ')}`);
    }
  }
  return problems;
}
