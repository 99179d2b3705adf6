/**
 * What the kernel's waits need from a cancel: whether it happened and a way to hear of it.
 * An AbortSignal is one; so is a Cancellation, which costs next to nothing until used.
 */
export interface AbortLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * One call's cancel. Every API call has one and almost none is ever cancelled, while an
 * AbortController and its listeners were a measurable part of each call (Node 20): this keeps
 * a plain list, and makes the real AbortSignal a tool may ask for (`ctx.signal`) only when
 * asked. Listeners run once, on the first `abort`, like an AbortSignal's with `{ once: true }`.
 */
export class Cancellation implements AbortLike {
  aborted = false;
  private listeners: Array<() => void> | null = null;
  private controller: AbortController | null = null;

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    // As an AbortSignal: a listener added after the abort is never called.
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.listeners;
    if (listeners === null) return;
    const at = listeners.lastIndexOf(listener);
    // Listeners usually go newest first (a request's before its call's): pop, no new array.
    if (at === listeners.length - 1) listeners.pop();
    else if (at !== -1) listeners.splice(at, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners !== null) for (const listener of listeners) listener();
    this.controller?.abort();
  }
}

/** A call's signal as a tool sees it: always a real AbortSignal. */
export function signalOf(cancel: AbortSignal | Cancellation): AbortSignal {
  return cancel instanceof Cancellation ? cancel.signal : cancel;
}
