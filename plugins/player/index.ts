import { z } from 'zod';
import { definePlugin, defineTool, type ModReply } from 'mcbridge';
import { lineText, isObject, str } from 'mcbridge/kit';

/** Flat fields older mods put at the top level instead of a nested `player` object. */
const FLAT_PLAYER_FIELDS = ['uuid', 'name', 'dimension', 'position', 'pos', 'rotation', 'yaw', 'pitch', 'view', 'viewTarget', 'look'];


export const playerContextResult = z.object({
  type: z.literal('player_context'),
  found: z.boolean(),
  player: z.looseObject({}).nullable(),
  uuid: z.string().optional(),
  name: z.string().optional(),
  requested: z.string().optional(),
  matchedBy: z.string().optional(),
  tick: z.number().optional(),
  status: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type PlayerContext = z.infer<typeof playerContextResult>;

/**
 * One PLAYER reply, normalised the way the predecessor's adapter did:
 * the nested `player` object (or the flat fields an older mod sent), a top-level `view`
 * merged into it when it has none of its own, `found` true unless the mod says otherwise.
 */
export function normalizePlayerReply(reply: ModReply, requested: string): PlayerContext {
  let player: Record<string, unknown> | null = null;
  if (isObject(reply.player)) {
    player = { ...reply.player };
  } else {
    const flat = Object.fromEntries(FLAT_PLAYER_FIELDS.filter((k) => k in reply).map((k) => [k, reply[k]]));
    if (Object.keys(flat).length > 0) player = flat;
  }
  if (player && isObject(reply.view) && !isObject(player.view)) player.view = reply.view;
  const found = typeof reply.found === 'boolean' ? reply.found : true;
  const out: PlayerContext = { type: 'player_context', found, player: found ? player : null };
  const uuid = str(reply.uuid) ?? str(player?.uuid);
  const name = str(reply.name) ?? str(player?.name);
  if (uuid) out.uuid = uuid;
  if (name) out.name = name;
  if (!uuid && !name) out.requested = requested;
  if (str(reply.matchedBy)) out.matchedBy = reply.matchedBy as string;
  if (typeof reply.tick === 'number') out.tick = reply.tick;
  const status = str(reply.status) ?? (found ? undefined : 'not_found');
  if (status) out.status = status;
  if (str(reply.reason)) out.reason = reply.reason as string;
  const message = str(reply.message) ?? str(reply.error);
  if (message) out.message = message;
  return out;
}

export const playerPlugin = definePlugin({
  name: 'player',
  version: '1.0.0',
  apiVersion: 1,
  requires: { caps: ['player'] },
  verbs: { PLAYER: { replies: ['player'], requires: ['player'] } },
  tools: [
    defineTool({
      name: 'player',
      description:
        'Server-side context of one online player, by UUID (preferred: names can change) or name (exact first, then ' +
        'any case): position, rotation, dimension, health, true game mode (survival, creative, adventure, spectator), eye ' +
        'position and, when the mod advertises player:view, `player.view` with what the player is looking at (block, ' +
        'entity or miss, computed on the server). A player who is not online is `found: false` with a message, not an ' +
        'error. One cheap round trip; for every player at once use `state`, for what a player saw when chatting use ' +
        '`context` with the chat event\'s contextId.',
      input: z.object({
        player: lineText('player', '"Steve" or "069a79f4-44e9-4726-a5be-fca90e38aaf5"', 100),
      }).strict(),
      output: playerContextResult,
      paramAliases: { uuid: 'player', name: 'player', id: 'player' },
      annotations: { readOnly: true, idempotent: true },
      run: async ({ player }, ctx) => normalizePlayerReply(await ctx.request(`PLAYER ${player}`), player),
    }),
  ],
});

export default playerPlugin;
