import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
import { lineText } from 'mcbridge/kit';
import { normalizePlayerReply, playerContextResult } from './reply.js';

export const playerPlugin = definePlugin({
  name: 'player',
  version: '1.0.0',
  apiVersion: 1,
  requires: { caps: ['player'] },
  verbs: { PLAYER: (player) => ({ replies: ['player'], requires: ['player'], control: { op: 'player', params: { player } } }) },
  tools: [
    defineTool({
      name: 'player',
      description:
        'Server-side context of one online player, by UUID (preferred: names can change) or name (exact first, then ' +
        'any case): position, rotation, dimension, health, true game mode (survival, creative, adventure, spectator), eye ' +
        'position and, when the mod advertises player:view, `player.view` with what the player is looking at (block, ' +
        'entity or miss, computed on the server). A player who is not online is `found: false` with a message, not an ' +
        'error. One cheap round trip; for every player at once use `state`, for what a player saw when chatting use ' +
        "`context` with the chat event's contextId.",
      input: z
        .object({
          player: lineText('player', '"Steve" or "069a79f4-44e9-4726-a5be-fca90e38aaf5"', 100),
        })
        .strict(),
      output: playerContextResult,
      paramAliases: { uuid: 'player', name: 'player', id: 'player' },
      annotations: { readOnly: true, idempotent: true },
      run: async ({ player }, ctx) => normalizePlayerReply(await ctx.request(`PLAYER ${player}`), player),
    }),
  ],
});

export default playerPlugin;
