/**
 * Verb matching shared by both vantages: "exact" verbs must be the whole trimmed line; verbs with
 * an argument need `VERB ` (one space) and take the rest of the original, case-preserved line.
 * Also the canonical verb names used by the knobs (`replyDelayMs`, `silentVerbs`).
 */
export interface VerbMatch {
  /** Canonical name, e.g. `PLAYER` for `PLAYER_GET`. */
  verb: string;
  arg: string;
}

export class VerbMatcher {
  private readonly upper: string;

  constructor(private readonly line: string) {
    this.upper = line.toUpperCase();
  }

  /** The line is exactly one of `names` (ignoring case). */
  exact(...names: string[]): boolean {
    return names.includes(this.upper);
  }

  /** Text after `NAME ` for the first matching name, untrimmed; null when none matches. */
  argument(...names: string[]): string | null {
    for (const name of names) {
      if (this.upper.startsWith(`${name} `)) return this.line.slice(name.length + 1);
    }
    return null;
  }

  startsWith(...prefixes: string[]): boolean {
    return prefixes.some((p) => this.upper.startsWith(p));
  }
}

const ALIASES: Record<string, string> = {
  PLAYER_GET: 'PLAYER',
  PLAYER_CONTEXT: 'PLAYER',
  PLAYER_STATE: 'PLAYER',
  CAPABILITIES: 'CAPS',
  CAPS_GET: 'CAPS',
  CONTEXT_GET: 'CONTEXT',
  CONTEXT_STATS_GET: 'CONTEXT_STATS',
  STATE_GET: 'STATE',
  ENTITY_LIST: 'ENTITIES',
  COMMAND: 'CMD',
  SAY: 'CHAT',
  RECORD_START: 'SAMPLE_START',
  RECORD_STOP: 'SAMPLE_STOP',
};

/** `entity_list` → `ENTITIES`: how knob keys name verbs. */
export function canonicalVerb(name: string): string {
  const upper = name.toUpperCase();
  return ALIASES[upper] ?? upper;
}

/** The capability that enables each verb; verbs not listed (PING, ECHO, CAPS) always work. */
export const VERB_CAPABILITY: Record<string, string> = {
  PLAYER: 'player',
  CONTEXT: 'context',
  CONTEXT_STATS: 'context',
  STATE: 'state',
  ENTITIES: 'entities',
  CMD: 'command',
  SNAPSHOT: 'snapshot',
  SNAPSHOTS: 'snapshot',
  WAIT: 'wait',
  MARK: 'mark',
  CHAT: 'chat',
  SAMPLE_START: 'record',
  SAMPLE_STOP: 'record',
  SCREEN: 'screen',
  CONNECT: 'connect',
  WORLD: 'world',
  LAN: 'lan',
};
