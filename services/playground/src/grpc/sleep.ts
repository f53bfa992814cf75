import { setTimeout as wait } from 'node:timers/promises';
import type { Sleep } from '../domain/delay';

/** A real timer that is cleared the moment the signal aborts (timers/promises does the clearing). */
export const timerSleep: Sleep = async (ms, signal) => {
  await wait(ms, undefined, { signal });
};
