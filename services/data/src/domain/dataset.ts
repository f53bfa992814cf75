/**
 * Bumping the version changes every generated value and invalidates every
 * cursor and page token issued before, since both are bound to it.
 */
export const DATASET_VERSION = 1;

/** Data is generated as history up to (not including) this date, so it never drifts with the clock. */
export const REFERENCE_DATE = '2026-01-01';
