/** The PLAYER reply, normalised: the player tool's result. */
import { z } from 'zod';
import type { ModReply } from 'mcbridge';
import { isObject, str } from 'mcbridge/kit';

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
