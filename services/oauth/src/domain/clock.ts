/** Milliseconds since the epoch. Injected everywhere expiry is decided, so tests move time instead of waiting for it. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** Whole seconds since the epoch (JWT NumericDate, OAuth 1.0a timestamps). */
export const epochSeconds = (clock: Clock) => Math.floor(clock() / 1000);
