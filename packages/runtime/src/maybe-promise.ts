/**
 * A value that is either here already or on its way. A remembered answer
 * comes back as the value itself, so a caller on a hot path (the gateway's
 * data page) skips the promise and the microtask it would cost.
 */
export type MaybePromise<T> = T | Promise<T>;
