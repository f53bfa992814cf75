import { STATUS_CODES } from 'node:http';
import { challenges, playgroundApi } from '@sandbox/contracts';
import { delayFields, delayHeaders, delayNote, readDelay, type Delay } from './delay';
import { emptyAnswer, jsonAnswer, NOTE_HEADER, textAnswer, type Answer, type Header, type Inbound } from './http';
import { invalidParameter, Query } from './query';

export const RESPOND_DELAY_CAP_MS = playgroundApi.DELAY_CAPS.response;

/** Statuses whose answer has no body (RFC 9110 15.3.5, 15.3.6, 15.4.5): a body sent with them would corrupt the connection. */
export const BODYLESS_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/** The methods /playground/response serves, for the Allow header a 405 must carry. */
export const RESPOND_METHODS = 'GET, POST, PUT, PATCH, DELETE';

/** What to wait, then what to answer. */
export interface Planned {
  delay: Delay;
  answer: Answer;
}

/**
 * retry_after: seconds for a Retry-After header, so a client's retry logic
 * (urllib3's Retry, Polly, a hand-written loop) can be practised on a 429 or
 * 503 that asks for a known wait. Absent: no header. Refused above the cap
 * rather than clamped: a Retry-After other than the one asked for would
 * teach a client to wait the wrong time.
 */
function readRetryAfter(query: Query): number | undefined {
  if (!query.has('retry_after')) return undefined;
  const what = `a whole number of seconds from 0 to ${playgroundApi.MAX_RETRY_AFTER_S}, e.g. retry_after=2`;
  const seconds = query.integer('retry_after', 0, what);
  if (seconds > playgroundApi.MAX_RETRY_AFTER_S) throw invalidParameter(`retry_after must be ${what}; got ${seconds}.`);
  return seconds;
}

const statusName = (status: number) => (STATUS_CODES[status] ? `${status} ${STATUS_CODES[status]}` : String(status));

/** Headers HTTP requires with some statuses, so the answer stays valid HTTP (RFC 9110 15.5.2, 15.5.6). */
function requiredHeaders(status: number): Header[] {
  if (status === 401) return [{ name: 'WWW-Authenticate', value: challenges.CHALLENGE.bearer }];
  if (status === 405) return [{ name: 'Allow', value: RESPOND_METHODS }];
  return [];
}

/**
 * /playground/response?status=&delay=&body=&retry_after=: answers `status` after `delay`
 * ms (capped at 10 s). With `body`, that text is the whole answer
 * (text/plain); without it, a JSON description. What HTTP cannot deliver as
 * asked is answered as close as HTTP allows, and said so in X-Playground-Note:
 * a 1xx cannot be a final answer (a client would wait for the real one), so it
 * becomes a 200; 204, 205 and 304 carry no body.
 */
export function planRespond(request: Inbound): Planned {
  const query = new Query(request.rawQuery);
  const requested = query.integer('status', 200, 'an integer from 100 to 599, e.g. status=503');
  if (requested < 100 || requested > 599) throw invalidParameter(`status must be an integer from 100 to 599; got ${requested}.`);
  const delay = readDelay(query, 0, RESPOND_DELAY_CAP_MS);
  const text = query.single('body');
  const retryAfter = readRetryAfter(query);

  const notes: string[] = [];
  const clamped = delayNote(delay);
  if (clamped) notes.push(clamped);
  let status = requested;
  if (requested < 200) {
    status = 200;
    notes.push(
      `${statusName(requested)} is an informational (1xx) status: a server sends one only before the final answer, never as it (a client would keep waiting for the real answer), so this final answer is a 200.`,
    );
  } else if (BODYLESS_STATUSES.has(requested) && text !== undefined) {
    notes.push(`${statusName(requested)} cannot carry a body, so the body parameter was not sent.`);
  } else if (requested >= 300 && requested < 400 && requested !== 304) {
    notes.push(`This ${requested} has no Location, so a client has nowhere to go and returns it as it is; /playground/redirect makes real redirects.`);
  }

  if (retryAfter !== undefined && !playgroundApi.retryAfterHeeded(status)) notes.push(playgroundApi.retryAfterIgnoredNote(status));

  const headers: Header[] = [...delayHeaders(delay), ...requiredHeaders(status)];
  if (retryAfter !== undefined) headers.push({ name: 'Retry-After', value: String(retryAfter) });
  if (status !== requested) headers.push({ name: 'X-Status-Requested', value: String(requested) });
  // One line of plain ASCII, so any client's header dump shows it intact.
  if (notes.length) headers.push({ name: NOTE_HEADER, value: notes.join(' ').replace(/[^\x20-\x7e]/g, '?') });

  if (BODYLESS_STATUSES.has(status)) return { delay, answer: emptyAnswer(status, headers) };
  if (text !== undefined) return { delay, answer: textAnswer(text, status, headers) };
  return {
    delay,
    answer: jsonAnswer(
      {
        status,
        statusText: STATUS_CODES[status] ?? null,
        ...(status !== requested ? { statusRequested: requested } : {}),
        method: request.method,
        ...delayFields(delay),
        ...(retryAfter !== undefined ? { retryAfter } : {}),
        notes,
      },
      status,
      headers,
    ),
  };
}
