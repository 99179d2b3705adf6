/**
 * The config `npm start` (mcbridge run --sim) picks up from this directory. It adds two composite
 * tools; edit it while the daemon runs and the change is live a moment later (`mcbridge tools`).
 * See docs/plugins.md for everything a config can hold.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineComposite, defineConfig, McbridgeError } from 'mcbridge';

/** A UUID as the four signed ints of an NBT `UUID:[I;a,b,c,d]`. */
function uuidInts(uuid: string): number[] {
  const hex = uuid.replace(/-/g, '');
  return [0, 8, 16, 24].map((i) => Number.parseInt(hex.slice(i, i + 8), 16) | 0);
}

const summonAt = defineComposite({
  name: 'summon_at',
  description:
    'Summon an entity (e.g. "zombie", "minecraft:cow") at an online player\'s position, plus an optional offset, and ' +
    'return the entity record the game reports for it (id, uuid, position, health). Use it instead of `command` + ' +
    '`entities` when you need to know exactly which entity you created. Players in the overworld only.',
  input: z
    .object({
      type: z.string().regex(/^[a-z0-9_.-]+(:[a-z0-9_./-]+)?$/, 'must be an entity type id, e.g. "zombie" or "minecraft:cow"'),
      player: z.string().min(1).optional().describe('player name; default: the first online player'),
      offset: z.object({ x: z.number(), y: z.number(), z: z.number() }).partial().optional().describe('blocks from the player'),
    })
    .strict(),
  uses: ['state', 'command', 'entities'],
  // `command` can destroy anything; this one only adds an entity.
  annotations: { destructive: false },
  run: async ({ args, state, command, call }) => {
    const players = ((await state()).playerList ?? []) as Array<{ name: string; x: number; y: number; z: number; dimension: string }>;
    const player = args.player === undefined ? players[0] : players.find((p) => p.name.toLowerCase() === args.player!.toLowerCase());
    if (!player) {
      throw new McbridgeError(
        'invalid_params',
        args.player === undefined
          ? 'nobody is online to summon at; pass a player who is'
          : `no online player is called '${args.player}' (online: ${players.map((p) => p.name).join(', ') || 'nobody'})`,
      );
    }
    if (player.dimension !== 'minecraft:overworld') {
      throw new McbridgeError('invalid_params', `${player.name} is in ${player.dimension}; summon_at summons in the overworld only`);
    }
    const at = { x: player.x + (args.offset?.x ?? 0), y: player.y + (args.offset?.y ?? 0), z: player.z + (args.offset?.z ?? 0) };
    // A UUID of our own choosing finds the new entity again without guessing.
    const uuid = randomUUID();
    const ack = await command(`summon ${args.type} ${at.x} ${at.y} ${at.z} {UUID:[I;${uuidInts(uuid).join(',')}]}`);
    const { entities } = (await call('entities')) as { entities: Array<{ uuid: string }> };
    const entity = entities.find((e) => e.uuid === uuid) ?? null;
    return { requested: { type: args.type, player: player.name, at, uuid }, feedback: ack.output ?? [], verified: entity !== null, entity };
  },
});

const commandUntil = defineComposite({
  name: 'command_until',
  description:
    'Run one console command, then wait until an event whose text matches `until` (a regular expression) arrives, and ' +
    "return the command's feedback and that event. For what a single command cannot report, e.g. ask with " +
    '"say Ready?" and wait for a player\'s chat answer (category "chat", from "<player>"). Gives up after timeoutSeconds.',
  input: z
    .object({
      command: z.string().trim().min(1),
      until: z
        .string()
        .min(1)
        .refine((re) => {
          try {
            new RegExp(re);
            return true;
          } catch {
            return false;
          }
        }, 'must be a valid regular expression')
        .describe("regular expression tested against each event's text"),
      category: z.enum(['chat', 'game', 'mark', 'other']).optional().describe('only events of this category'),
      from: z.string().min(1).optional().describe('only chat events from this player'),
      timeoutSeconds: z.number().positive().max(600).default(30),
    })
    .strict(),
  uses: ['command'],
  run: async ({ args, command, waitFor }) => {
    const pattern = new RegExp(args.until);
    const ack = await command(args.command);
    // waitFor looks from the start of this call: an event that came with the ack is not missed.
    const event = await waitFor(
      (e) =>
        (args.category === undefined || e.category === args.category) &&
        (args.from === undefined || String(e.sender ?? '').toLowerCase() === args.from.toLowerCase()) &&
        typeof e.text === 'string' &&
        pattern.test(e.text),
      { timeoutMs: args.timeoutSeconds * 1000 },
    );
    return { command: args.command, feedback: ack.output ?? [], event };
  },
});

export default defineConfig({
  composites: [summonAt, commandUntil],
});
