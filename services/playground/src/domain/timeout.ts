import { playgroundApi } from '@sandbox/contracts';
import { delayFields, delayHeaders, delayNote, readDelay } from './delay';
import { jsonAnswer, type Inbound } from './http';
import { Query } from './query';
import type { Planned } from './respond';

export const TIMEOUT_DEFAULT_MS = 1000;
/** A typical ingress read timeout: a proxy in front of a real API would have given up by then. */
export const TIMEOUT_CAP_MS = playgroundApi.DELAY_CAPS.timeout;

/** /playground/timeout?delay=: waits (default 1 s, capped at 60 s), then 200 saying how long. */
export function planTimeout(request: Inbound): Planned {
  const delay = readDelay(new Query(request.rawQuery), TIMEOUT_DEFAULT_MS, TIMEOUT_CAP_MS);
  const notes = [playgroundApi.timeoutNote(delay.appliedMs)];
  const clamped = delayNote(delay);
  if (clamped) notes.unshift(clamped);
  return { delay, answer: jsonAnswer({ status: 200, ...delayFields(delay), notes }, 200, delayHeaders(delay)) };
}
