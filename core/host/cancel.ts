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
  /** Most calls have one or two listeners at a time (the request's, the call's): fields, not an array. */
  private first: (() => void) | null = null;
  private second: (() => void) | null = null;
  private more: Array<() => void> | null = null;
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
    if (this.aborted) return;
    if (this.first === null && this.second === null && this.more === null) this.first = listener;
    else if (this.second === null && this.more === null) this.second = listener;
    else (this.more ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const more = this.more;
    if (more !== null) {
      const at = more.lastIndexOf(listener);
      if (at !== -1) {
        more.splice(at, 1);
        return;
      }
    }
    if (this.second === listener) this.second = null;
    else if (this.first === listener) this.first = null;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const { first, second, more } = this;
    this.first = this.second = null;
    this.more = null;
    first?.();
    second?.();
    if (more !== null) for (const listener of more) listener();
    this.controller?.abort();
  }
}

/** A call's signal as a tool sees it: always a real AbortSignal. */
export function signalOf(cancel: AbortSignal | Cancellation): AbortSignal {
  return cancel instanceof Cancellation ? cancel.signal : cancel;
}
