/**
 * What the vantage modules need from the running sim, and the shapes they hand back. A verb
 * handler returns a Plan; the sim decides when it runs (reader thread, server thread, tick end),
 * which is where reply overtaking comes from.
 */
import type { ChatContexts } from './chat-context.js';
import type { World } from './world.js';

export type Reply = Record<string, unknown>;

export type Plan =
  /** Answered at once on the connection's reader thread; `then` runs after the reply is written. */
  | { kind: 'now'; reply: Reply; then?: () => void }
  /** Queued: server thread (server vantage) or next client tick (client vantage). */
  | { kind: 'task'; run: () => Reply | null; then?: () => void }
  /** Server vantage `WAIT n`, n > 0: answered after n tick ends. */
  | { kind: 'wait'; ticks: number };

export interface VantageHost {
  readonly world: World;
  readonly version: string;
  readonly port: number;
  /** The vantage directory (`mc-agent-server` or `mc-agent`). */
  readonly modDir: string;
  readonly worldDir: string;
  readonly snapshotsDir: string;
  readonly chat: ChatContexts;
  millis(): number;
  capabilities(): readonly string[];
  has(capability: string): boolean;
  /** Push an event to events.jsonl and every connection. */
  emit(event: Reply): void;
  connectionCount(): number;
  appendSample(line: string): void;
  /** `save-all`: write the world folder now (`flush`) or on the next tick. Throws when it cannot. */
  saveWorld(flush: boolean): void;
  /** A console command of the control transport (`mcagent control ...`): its feedback, or null when it is not one. */
  consoleCommand(command: string): string[] | null;
  /** STATE's `control` member. */
  controlStatus(): Reply;
}

export function errorReply(millis: number, message: string): Reply {
  return { type: 'error', millis, message };
}

export function now(reply: Reply, then?: () => void): Plan {
  return { kind: 'now', reply, then };
}

export function task(run: () => Reply | null, then?: () => void): Plan {
  return { kind: 'task', run, then };
}

/** The generic event shape `{type, millis, text, event:true}`. */
export function textEvent(type: string, millis: number, text: string): Reply {
  return { type, millis, text, event: true };
}
