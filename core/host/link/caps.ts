/**
 * Capability tokens as the mod advertises them (docs/protocol.md#capabilities-caps), normalised, with
 * the alias groups older and newer mods used for the same feature. A requirement names
 * the canonical token; any spelling in its group satisfies it.
 */
export type Caps = ReadonlySet<string>;

const ALIAS_GROUPS: Record<string, readonly string[]> = {
  player: ['player', 'player_context', 'playercontext', 'context:player'],
  context: ['context', 'context_bundle', 'contextbundle', 'chat_context', 'context:chat'],
};

/**
 * Where a capability came from upstream, for messages that say why a tool is missing, and the
 * token the predecessor named in them (its clients match the text).
 */
export const CAPABILITY_ORIGINS: Record<string, { issue: string; label: string; url: string; legacyToken: string }> = {
  player: {
    legacyToken: 'player_context',
    issue: 'mc-agent-interface-mod#1',
    label: 'Expose server-side context for a named player',
    url: 'https://github.com/guajun/mc-agent-interface-mod/issues/1',
  },
  context: {
    legacyToken: 'context_bundle',
    issue: 'mc-agent-interface-mod#2',
    label: 'Capture and cache player context with chat events',
    url: 'https://github.com/guajun/mc-agent-interface-mod/issues/2',
  },
};

/** The mod's released capability lists (mod 0.8.0), used until a live mod answers. */
export const DEFAULT_CAPS = {
  server: ['state', 'entities', 'player', 'player:view', 'command', 'context', 'wait', 'mark', 'snapshot', 'events:game', 'events:chat'],
  client: ['state', 'entities', 'command', 'chat', 'record', 'wait', 'screen', 'mark', 'connect', 'world', 'lan', 'events:chat', 'events:game'],
} as const;

/**
 * Normalise whatever a hello or CAPS reply carried. `null` means "unknown" (a legacy
 * mod that advertises nothing): the host then does not filter. An empty list means the
 * mod advertises nothing and every mod-backed tool is hidden.
 */
export function normalizeCaps(raw: unknown): Caps | null {
  // null, undefined and anything that is neither a string nor a list: unknown.
  const items = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : null;
  if (items === null) return null;
  const out = new Set<string>();
  for (const item of items) {
    const token = String(item).trim().toLowerCase();
    if (token) out.add(token);
  }
  return out;
}

/** Every spelling in an alias group, mapped to the group's canonical token. */
const CANONICAL_OF = new Map<string, string>(Object.entries(ALIAS_GROUPS).flatMap(([canonical, spellings]) => spellings.map((s) => [s, canonical] as const)));

export function canonicalCap(token: string): string {
  const t = token.trim().toLowerCase();
  return CANONICAL_OF.get(t) ?? t;
}

export function hasCap(caps: Caps, required: string): boolean {
  const canonical = canonicalCap(required);
  const spellings = ALIAS_GROUPS[canonical];
  if (spellings === undefined) return caps.has(canonical);
  return spellings.some((s) => caps.has(s));
}

/** Required tokens the caps do not satisfy; `[]` when caps are unknown (no filtering). */
export function missingCaps(caps: Caps | null, required: readonly string[]): string[] {
  if (caps === null || required.every((r) => hasCap(caps, r))) return [];
  return required.filter((r) => !hasCap(caps, r));
}
