/**
 * Tools that drive the simulated mod a daemon runs in its own process (`mcbridge run --sim`,
 * `mcbridge mcp --embedded --sim`): a simulated player chats, joins, leaves or dies, so a person
 * or an agent trying mcbridge can answer a `command_until` or a `wait_for`. They exist only on such
 * a daemon (a real server has players of its own) and touch the sim object, never the mod link.
 * `mcbridge sim chat|join|leave|die` calls them. See docs/decisions.md.
 */
import { z } from 'zod';
import { definePlugin, defineTool, HOST_API_VERSION, McbridgeError, VERSION, type Plugin } from '../index.js';
import { toJavaJson, type SimEntity, type SimulatedMod } from '../sim/index.js';

const playerName = z.string().trim().min(1).max(64).describe('player name (any case) or UUID');

function where(player: SimEntity) {
  const { x, y, z: zPos, dimension, uuid } = player;
  return { name: player.player?.name ?? '', uuid, x, y, z: zPos, dimension };
}

function online(sim: SimulatedMod, name: string): SimEntity {
  const player = sim.findPlayer(name);
  if (player) return player;
  const names = sim.world.players.map((p) => p.player?.name).join(', ') || 'nobody';
  throw new McbridgeError('invalid_params', `no player '${name}' is online in the simulated world (online: ${names}); add one with sim_join`);
}

const annotations = { readOnly: false, destructive: false, idempotent: false, openWorld: false } as const;

export const SIM_DRIVER_PLUGIN = 'sim-driver';

export function simDriverPlugin(sim: SimulatedMod): Plugin {
  return definePlugin({
    name: SIM_DRIVER_PLUGIN,
    version: VERSION,
    apiVersion: HOST_API_VERSION,
    description: 'Drives the in-process simulated mod: its players chat, join, leave and die',
    tools: [
      defineTool({
        name: 'sim_chat',
        description:
          'Simulated world only: make an online simulated player send a chat message, as if typed in the game ' +
          '(a `chat` event follows, with context). Use it to answer a waiting command_until or wait_for while trying mcbridge.',
        input: z.object({ player: playerName, text: z.string().min(1).max(256).describe('the message, up to 256 characters as in the game') }).strict(),
        annotations,
        run: async ({ player, text }) => {
          const sender = online(sim, player);
          const event = sim.chat(sender.player?.name ?? player, text);
          // The event as the mod wrote it (the sim keeps Java doubles wrapped until then).
          return { player: sender.player?.name, text, event: event && JSON.parse(toJavaJson(event)) };
        },
      }),
      defineTool({
        name: 'sim_join',
        description: 'Simulated world only: a new player logs in, at the world spawn unless a position is given. Returns where it stands.',
        input: z
          .object({
            player: z.string().regex(/^[A-Za-z0-9_]{1,16}$/, 'must be a player name: 1-16 letters, digits or _'),
            x: z.number().optional(),
            y: z.number().optional(),
            z: z.number().optional(),
            gameMode: z.enum(['survival', 'creative', 'adventure', 'spectator']).optional(),
          })
          .strict(),
        annotations,
        run: async ({ player, ...spec }) => {
          if (sim.findPlayer(player)) throw new McbridgeError('invalid_params', `'${player}' is already online in the simulated world; pick another name`);
          return { joined: where(sim.addPlayer({ name: player, ...spec })) };
        },
      }),
      defineTool({
        name: 'sim_leave',
        description: 'Simulated world only: an online player logs out.',
        input: z.object({ player: playerName }).strict(),
        annotations,
        run: async ({ player }) => {
          const leaving = where(online(sim, player));
          sim.removePlayer(leaving.uuid);
          return { left: leaving };
        },
      }),
      defineTool({
        name: 'sim_die',
        description: 'Simulated world only: an online player dies (as by /kill) and respawns at the world spawn at once. Returns where it respawned.',
        input: z.object({ player: playerName }).strict(),
        annotations,
        run: async ({ player }) => {
          online(sim, player);
          return { respawned: where(sim.killPlayer(player)!) };
        },
      }),
    ],
  });
}
