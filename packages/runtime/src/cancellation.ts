/**
 * What a caller's cancellation must offer: the part of AbortSignal that
 * service calls use. An AbortSignal is one; so is a Cancellation.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A cancellation for the hot path: every gateway request has one, and making
 * an AbortController (an EventTarget) costs microseconds that a request
 * answered in tens of them notices. Listeners run once, as with `{ once: true }`.
 */
export class Cancellation implements CancelSignal {
  aborted = false;
  private listeners?: Set<() => void>;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) (this.listeners ??= new Set()).add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners?.delete(listener);
  }

  cancel(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }
}
