import type { MaybePromise } from '../maybe-async';

/** One cap a slow request counts against: its client address's, or its app's. */
export interface SlotClaim {
  readonly key: string;
  readonly cap: number;
}

export type Held =
  /** A slot under every claim; `inUse` is each claim's count, this one included. */
  | { readonly held: true; readonly inUse: readonly number[] }
  /** None taken: `full` is the index of the first claim already at its cap. */
  | { readonly held: false; readonly full: number };

/**
 * Counts the slow requests in flight (slow-requests.ts): in this process
 * (memory-slot-counter.ts), or in Redis, shared by every gateway replica
 * (redis-slot-counter.ts). A request takes a slot under each of its claims
 * at once or none, and gives them back when it is answered.
 */
export interface SlotCounter {
  hold(claims: readonly SlotClaim[], id: string, now: number): MaybePromise<Held>;
  release(claims: readonly SlotClaim[], id: string): void;
}
