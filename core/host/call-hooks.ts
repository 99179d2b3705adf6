/**
 * Hooks a plugin runs before every call on its target, ahead of the CAPS gate: the server plugin
 * starts a server that was stopped for being idle, so the call it was stopped for finds it up.
 */
import type { BeforeCall, BeforeCallHook } from './plugin-api.js';

export class CallHooks {
  private readonly hooks = new Set<BeforeCallHook>();

  get size(): number {
    return this.hooks.size;
  }

  /** Adds one until `signal` aborts (its plugin stops) or the returned function is called. */
  add(hook: BeforeCallHook, signal: AbortSignal): () => void {
    const entry: BeforeCallHook = (call) => hook(call);
    this.hooks.add(entry);
    const remove = () => this.hooks.delete(entry);
    signal.addEventListener('abort', remove, { once: true });
    return remove;
  }

  /** In the order added; a hook that throws fails the call with its (coded) error. */
  async run(call: BeforeCall): Promise<void> {
    for (const hook of [...this.hooks]) await hook(call);
  }
}
