/**
 * What each mod verb answers with (mod-protocol.md §2.3, §4) and how long to wait for
 * it. Replies carry no request ids, so the expected `type` is how the link tells a
 * reply to its request from anything else on the wire.
 */
export interface VerbSpec {
  /** Reply `type`s that answer this verb; an `error` reply always may. Empty: any reply. */
  replies: readonly string[];
  timeoutMs: number;
  /** Runs on a short-lived connection of its own, so it never holds up other calls. */
  blocking: boolean;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
const ENTITIES_TIMEOUT_MS = 60_000;
const SNAPSHOT_TIMEOUT_MS = 120_000;
const WAIT_SLACK_MS = 20_000;
export const TICK_MS = 50;

const SIMPLE: Record<string, readonly string[]> = {
  PLAYER: ['player'],
  PLAYER_GET: ['player'],
  PLAYER_CONTEXT: ['player'],
  PLAYER_STATE: ['player'],
  PING: ['pong'],
  ECHO: ['echo_ack'],
  CAPS: ['capabilities'],
  CAPABILITIES: ['capabilities'],
  CAPS_GET: ['capabilities'],
  CONTEXT_STATS: ['context_stats'],
  CONTEXT_STATS_GET: ['context_stats'],
  CONTEXT_GET: ['context'],
  STATE: ['state'],
  STATE_GET: ['state'],
  ENTITIES: ['entities'],
  ENTITY_LIST: ['entities'],
  CMD: ['cmd_ack'],
  COMMAND: ['cmd_ack'],
  SNAPSHOTS: ['snapshots'],
  SNAPSHOT: ['snapshot_ack'],
  MARK: ['mark_ack'],
  WAIT: ['wait_ack'],
  // client vantage
  CHAT: ['chat_ack'],
  SAY: ['chat_ack'],
  SAMPLE_START: ['sample_start_ack'],
  RECORD_START: ['sample_start_ack'],
  SAMPLE_STOP: ['sample_stop_ack'],
  RECORD_STOP: ['sample_stop_ack'],
  SCREEN: ['screen'],
  CONNECT: ['connect_ack'],
  WORLD: ['world_ack'],
  WORLD_CLOSE: ['world_close_ack'],
  LAN: ['lan_ack'],
};

export function splitVerb(line: string): { verb: string; arg: string } {
  const trimmed = line.trim();
  const space = trimmed.indexOf(' ');
  if (space === -1) return { verb: trimmed.toUpperCase(), arg: '' };
  return { verb: trimmed.slice(0, space).toUpperCase(), arg: trimmed.slice(space + 1).trim() };
}

export function verbSpec(line: string): VerbSpec {
  const { verb, arg } = splitVerb(line);
  if (verb === 'CONTEXT') {
    return { replies: [arg ? 'context' : 'context_stats'], timeoutMs: DEFAULT_TIMEOUT_MS, blocking: false };
  }
  if (verb === 'WAIT') {
    const ticks = Number.parseInt(arg, 10);
    const n = Number.isFinite(ticks) ? ticks : 0;
    return { replies: ['wait_ack'], timeoutMs: Math.max(0, n) * TICK_MS + WAIT_SLACK_MS, blocking: n > 0 };
  }
  const replies = SIMPLE[verb] ?? [];
  const timeoutMs = verb === 'ENTITIES' || verb === 'ENTITY_LIST'
    ? ENTITIES_TIMEOUT_MS
    : verb === 'SNAPSHOT'
      ? SNAPSHOT_TIMEOUT_MS
      : DEFAULT_TIMEOUT_MS;
  return { replies, timeoutMs, blocking: false };
}
