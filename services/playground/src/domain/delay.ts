import { DELAY_HEADER, type Header } from './http';
import type { Query } from './query';

/**
 * Waits `ms`, or stops at once (rejecting) when `signal` aborts: the call was
 * cancelled (the HTTP client went away) or its deadline passed. Injected, so
 * tests can watch every wait start and end.
 */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface Delay {
  requestedMs: number;
  appliedMs: number;
  capMs: number;
  clamped: boolean;
}

/** The `delay` query parameter: a whole number of milliseconds, above the cap clamped to it (and said so). */
export function readDelay(query: Query, defaultMs: number, capMs: number): Delay {
  const requestedMs = query.integer('delay', defaultMs, 'a whole number of milliseconds, e.g. delay=1500');
  const appliedMs = Math.min(requestedMs, capMs);
  return { requestedMs, appliedMs, capMs, clamped: requestedMs > capMs };
}

export function delayHeaders(delay: Delay): Header[] {
  return [{ name: DELAY_HEADER, value: String(delay.appliedMs) }];
}

/** The delay's fields in an answer body. */
export function delayFields(delay: Delay) {
  return { delayRequestedMs: delay.requestedMs, delayAppliedMs: delay.appliedMs, delayCapMs: delay.capMs };
}

export function delayNote(delay: Delay): string | undefined {
  if (!delay.clamped) return undefined;
  return `delay=${delay.requestedMs} is above the cap of ${delay.capMs} ms, so the wait was ${delay.appliedMs} ms.`;
}
