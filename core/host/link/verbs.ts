/**
 * How a mod verb is answered. Replies carry no request ids (docs/protocol.md#lines-and-framing), so the
 * expected reply `type` is how the link tells a request's reply from anything else on the wire.
 * Plugins declare the verbs they send (Plugin.verbs); the link itself knows only the verbs of
 * the protocol that it needs for the handshake.
 */
export interface VerbSpec {
  /** Reply `type`s that answer this verb; an `error` reply always may. */
  replies: readonly string[];
  /** How long to wait for the reply; default 15 s. */
  timeoutMs?: number;
  /** Send it on a short-lived connection of its own (like `WAIT n` with n > 0), so it holds up no other call. */
  blocking?: boolean;
  /**
   * The mod answers it at once on its reader thread (docs/protocol.md#replies-and-errors: PING, CAPS, bare
   * CONTEXT, MARK, WAIT n <= 0), and can fail only with `unknown command: <line>`. Such a verb may
   * be sent while a slow server-thread verb is in flight, when no request in flight expects one of
   * its reply types (docs/decisions.md, "Reader-thread verbs overtake").
   */
  immediate?: boolean;
  /** CAPS tokens the verb needs (docs/protocol.md#capabilities-caps); a mod that advertises others is not sent it. */
  requires?: readonly string[];
  /**
   * It changes the game (CMD, CHAT, MARK, SNAPSHOT): it gets a request id, and every error of it
   * says whether it is safe to send again and whether it may have run (docs/control.md).
   */
  write?: boolean;
  /**
   * How it goes over the mod's control protocol 1: the op and its params (a function rule
   * builds them from the argument). Without it the verb is not sent over that transport, and a
   * target that speaks it refuses the verb, saying so.
   */
  control?: ControlForm;
  /** False: the verb exists over the control protocol only (leases, request_status); a legacy link refuses it. */
  legacy?: boolean;
}

/** A verb as control protocol 1 sends it: `{type: "request", id, op, params}`. */
export interface ControlForm {
  op: string;
  params?: Record<string, unknown>;
}

/** A verb's rule: fixed, or computed from the argument (`CONTEXT` vs `CONTEXT <id>`, `WAIT <ticks>`). */
export type VerbRule = VerbSpec | ((arg: string) => VerbSpec);

/** What the loaded plugins declare for `verb` (upper case) sent with `arg`; undefined when none does. */
export type VerbLookup = (verb: string, arg: string) => VerbSpec | undefined;

/** A verb's rule with every default filled in. */
export interface ResolvedVerb {
  replies: readonly string[];
  timeoutMs: number;
  blocking: boolean;
  immediate: boolean;
  requires: readonly string[];
  write: boolean;
  control: ControlForm | null;
  legacy: boolean;
  /** False for a verb nobody declared: then any reply answers it. */
  declared: boolean;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
/** One game tick at the normal 20 ticks per second. */
export const TICK_MS = 50;

/** The protocol's own verbs, which the link uses itself: CAPS for negotiation, PING as the liveness probe (docs/protocol.md#server-vantage-verbs). */
export const PROTOCOL_VERBS: Readonly<Record<string, VerbSpec>> = {
  CAPS: { replies: ['capabilities'], immediate: true, control: { op: 'capabilities' } },
  PING: { replies: ['pong'], immediate: true, control: { op: 'ping' } },
};

export function splitVerb(line: string): { verb: string; arg: string } {
  const trimmed = line.trim();
  const space = trimmed.indexOf(' ');
  if (space === -1) return { verb: trimmed.toUpperCase(), arg: '' };
  return { verb: trimmed.slice(0, space).toUpperCase(), arg: trimmed.slice(space + 1).trim() };
}

/** The rule for one request line: the protocol's verbs first, then what plugins declared. */
export function resolveVerb(line: string, lookup: VerbLookup | undefined): ResolvedVerb {
  const { verb, arg } = splitVerb(line);
  const spec = PROTOCOL_VERBS[verb] ?? lookup?.(verb, arg);
  return {
    replies: spec?.replies ?? [],
    timeoutMs: spec?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    blocking: spec?.blocking ?? false,
    immediate: spec?.immediate ?? false,
    requires: spec?.requires ?? [],
    write: spec?.write ?? false,
    control: spec?.control ?? null,
    legacy: spec?.legacy ?? true,
    declared: spec !== undefined,
  };
}
