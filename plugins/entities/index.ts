import { z } from 'zod';
import { definePlugin, defineTool, McbridgeError, type ModReply, type ToolContext } from 'mcbridge';
import { sortedCounts, javaDouble, modReply, num, str } from 'mcbridge/kit';

const DEFAULT_NEAREST = 20;
const MAX_NEAREST = 500;
const MAX_RAW_LIMIT = 10_000;
/** A full list of a busy world is slow to build on the server thread. */
const ENTITIES_TIMEOUT_MS = 60_000;

type Entity = Record<string, unknown>;
interface Origin {
  name: string | null;
  uuid: string | null;
  x: number;
  y: number;
  z: number;
}

const round = (v: number, places: number) => Math.round(v * 10 ** places) / 10 ** places;

/** `zombie` and `minecraft:zombie` name the same type; ids compare in lower case. */
function typeId(type: string): string {
  const t = type.trim().toLowerCase();
  return t.includes(':') ? t : `minecraft:${t}`;
}

const typeList = z.union(
  [z.string().trim().min(1, 'types must not be empty'), z.array(z.string().trim().min(1, 'each type must be a non-empty entity type, e.g. "zombie"')).min(1, 'types must not be an empty list')],
  { error: 'types must be an entity type such as "zombie" or "minecraft:cow", or a list of them' },
);

function typesOf(input: string | string[] | undefined): Set<string> | null {
  if (input === undefined) return null;
  const items = (Array.isArray(input) ? input : input.split(',')).map((t) => t.trim()).filter(Boolean);
  return new Set(items.map(typeId));
}

function entityList(reply: ModReply): Entity[] {
  return Array.isArray(reply.entities) ? reply.entities.filter((e): e is Entity => typeof e === 'object' && e !== null) : [];
}

function position(e: Entity): [number, number, number] | null {
  const x = num(e.x);
  const y = num(e.y);
  const z = num(e.z);
  return x === undefined || y === undefined || z === undefined ? null : [x, y, z];
}

/** One line per entity for an agent: identity, where, how far, how healthy. */
function compactEntity(e: Entity, origin: Origin | null): Entity {
  const out: Entity = { id: e.id, uuid: e.uuid, type: e.type };
  const name = str(e.name) ?? str(e.customName);
  if (name) out.name = name;
  const pos = position(e);
  if (pos) {
    out.pos = pos.map((v) => round(v, 2));
    if (origin) out.distance = round(Math.hypot(pos[0] - origin.x, pos[1] - origin.y, pos[2] - origin.z), 2);
  }
  const vel = [num(e.vx), num(e.vy), num(e.vz)];
  if (vel.every((v) => v !== undefined)) out.vel = (vel as number[]).map((v) => round(v, 3));
  if (e.alive === false) out.alive = false;
  if (num(e.health) !== undefined) out.health = e.health;
  if (num(e.vehicle) !== undefined && e.vehicle !== -1) out.vehicle = e.vehicle;
  if (Array.isArray(e.passengers) && e.passengers.length > 0) out.passengers = e.passengers;
  return out;
}

const same = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();
const sameUuid = (a: unknown, b: string) => typeof a === 'string' && a.replace(/-/g, '').toLowerCase() === b.replace(/-/g, '').toLowerCase();

/**
 * The centre of the summary: the named player, or (like the mod's own radius) the first
 * online player; on the client vantage the local player. Null when nobody is there.
 */
async function findOrigin(ctx: ToolContext, entities: Entity[], player: string | undefined): Promise<Origin | null> {
  const fromRecord = (e: Entity): Origin | null => {
    const pos = position(e);
    return pos ? { name: str(e.name) ?? null, uuid: str(e.uuid) ?? null, x: pos[0], y: pos[1], z: pos[2] } : null;
  };
  const players = entities.filter((e) => e.type === 'minecraft:player');
  if (player !== undefined) {
    const hit = players.find((e) => sameUuid(e.uuid, player)) ?? players.find((e) => e.name === player) ?? players.find((e) => same(e.name, player));
    if (hit) return fromRecord(hit);
    const names = players.map((e) => str(e.name)).filter(Boolean);
    throw new McbridgeError(
      'invalid_params',
      `invalid params for 'entities': 'player': no player named ${JSON.stringify(player)} is among the entities listed ` +
        `(${names.length > 0 ? `players there: ${names.join(', ')}` : 'no player is there'}); ENTITIES covers one dimension, so a player in another ` +
        'dimension cannot be the centre. Use `player` or `state` to see where everyone is.',
      { players: names },
    );
  }
  let state: Record<string, unknown>;
  try {
    state = (await ctx.call('state')) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof McbridgeError && err.code === 'unsupported_capability') return players[0] ? fromRecord(players[0]) : null;
    throw err;
  }
  // Client vantage: STATE is the local player.
  const x = num(state.x);
  const y = num(state.y);
  const z = num(state.z);
  if (x !== undefined && y !== undefined && z !== undefined) {
    const name = str(state.name) ?? null;
    const record = name ? players.find((e) => e.name === name) : undefined;
    return { name, uuid: str(record?.uuid) ?? null, x, y, z };
  }
  const first = Array.isArray(state.playerList) ? (state.playerList[0] as Entity | undefined) : undefined;
  if (first) {
    const pos = position(first);
    if (pos) return { name: str(first.name) ?? null, uuid: str(first.uuid) ?? null, x: pos[0], y: pos[1], z: pos[2] };
  }
  return null;
}

interface SummaryArgs {
  radius?: number | undefined;
  types?: string | string[] | undefined;
  player?: string | undefined;
  nearest?: number | undefined;
}

async function summarize(reply: ModReply, args: SummaryArgs, ctx: ToolContext): Promise<Record<string, unknown> & { type: string }> {
  const all = entityList(reply);
  const origin = await findOrigin(ctx, all, args.player);
  const wanted = typesOf(args.types);
  const radius = args.radius && args.radius > 0 ? args.radius : null;
  if (radius !== null && !origin) {
    throw new McbridgeError('invalid_params', "invalid params for 'entities': 'radius': a radius needs a player to measure from, and none is online; drop radius to count everything");
  }
  const distance = (e: Entity) => {
    const pos = position(e);
    return pos && origin ? Math.hypot(pos[0] - origin.x, pos[1] - origin.y, pos[2] - origin.z) : Infinity;
  };
  const isOrigin = (e: Entity) => origin !== null && origin.uuid !== null && e.uuid === origin.uuid;
  const matched = all.filter((e) => (!wanted || (typeof e.type === 'string' && wanted.has(typeId(e.type)))) && (radius === null || distance(e) <= radius));
  const counts = new Map<string, number>();
  for (const e of matched) counts.set(String(e.type), (counts.get(String(e.type)) ?? 0) + 1);
  const candidates = matched.filter((e) => !isOrigin(e));
  const ordered = origin
    ? candidates
        .map((e) => [e, distance(e)] as const)
        .sort((a, b) => a[1] - b[1])
        .map(([e]) => e)
    : candidates;
  const limit = args.nearest ?? DEFAULT_NEAREST;
  const shown = ordered.slice(0, limit).map((e) => compactEntity(e, origin));
  const out: Record<string, unknown> & { type: string } = {
    type: 'entities_summary',
    tick: reply.tick ?? null,
    dimension: reply.dimension ?? null,
    origin: origin ? { ...origin, x: round(origin.x, 2), y: round(origin.y, 2), z: round(origin.z, 2) } : null,
    radius,
    types: wanted ? [...wanted] : null,
    total: all.length,
    matched: matched.length,
    counts: sortedCounts(counts),
    nearest: shown,
    truncated: ordered.length > shown.length,
  };
  if (!origin) out.note = 'no player to measure from: nearest lists entities in tick order, without distances';
  return out;
}

/**
 * One object for both shapes (MCP wants an object schema): the raw reply (`type: "entities"`,
 * `entities`) or the summary (`type: "entities_summary"`, `counts`, `nearest`).
 */
const entitiesResult = modReply({
  tick: z.number().nullable().optional(),
  dimension: z.string().nullable().optional(),
  radius: z.number().nullable().optional(),
  entities: z.array(z.looseObject({})).optional().describe("raw: the mod's entity records in tick order"),
  total: z.number().int().optional(),
  matched: z.number().int().optional(),
  truncated: z.boolean().optional(),
  counts: z.unknown().optional().describe('summary: entities per type, largest first'),
  nearest: z.array(z.looseObject({})).optional().describe('summary: the nearest entities, with distance'),
  note: z.string().optional(),
});

export const entitiesPlugin = definePlugin({
  name: 'entities',
  version: '1.0.0',
  apiVersion: 1,
  requires: { caps: ['entities'] },
  verbs: {
    ENTITIES: (arg) => ({
      replies: ['entities'],
      timeoutMs: ENTITIES_TIMEOUT_MS,
      requires: ['entities'],
      control: { op: 'entities', params: arg === '' ? {} : Number.isFinite(Number(arg)) ? { radius: Number(arg) } : { dimension: arg } },
    }),
  },
  tools: [
    defineTool({
      name: 'entities',
      description:
        'Entities the game has loaded around the players. Two shapes. Summary (the default on MCP; elsewhere ' +
        '`summary: true`, or give `nearest` or `player`) is the one to start with: counts by type, and the `nearest` N ' +
        '(default 20; `limit` means the same here) around `player` (name or UUID; default the first online player, on ' +
        'the client vantage you) with distance, position, velocity and health, the centre itself left out; `radius` and ' +
        '`types` (a list or comma-separated, e.g. ["zombie", "minecraft:cow"]) narrow it. It is small whatever the world ' +
        "holds. Raw (`summary: false`; the default of the local API) is the mod's full records in tick order (server " +
        "vantage: the first online player's dimension, players included); `radius` (blocks around the first online " +
        'player, needs one online) is applied by the mod, `types` and `limit` cut the list here (`total`, `truncated`). ' +
        'Raw answers grow with the world: pass a radius, types or a limit when you can.',
      input: z
        .object({
          radius: z
            .number({ error: 'radius must be a number of blocks, e.g. 16' })
            .finite()
            .nonnegative('radius must be 0 or more (0 means every entity)')
            .optional()
            .describe('blocks around the first online player (raw) or around `player` (summary); 0 or omitted: everything'),
          summary: z.boolean({ error: 'summary must be true or false' }).optional().describe('true: counts by type and the nearest entities instead of the raw records'),
          types: typeList.optional().describe('only these entity types, e.g. ["zombie", "minecraft:cow"] or "zombie,cow"'),
          player: z
            .string({ error: 'player must be a player name or UUID' })
            .trim()
            .min(1, 'player must not be empty')
            .max(100)
            .optional()
            .describe('summary: measure from this player (name or UUID); default the first online player'),
          nearest: z
            .number({ error: `nearest must be a whole number, e.g. ${DEFAULT_NEAREST}` })
            .int('nearest must be a whole number')
            .min(1, 'nearest must be at least 1')
            .max(MAX_NEAREST, `nearest must be at most ${MAX_NEAREST}`)
            .optional()
            .describe(`summary: how many of the nearest entities to list (default ${DEFAULT_NEAREST})`),
          limit: z
            .number({ error: 'limit must be a whole number of entities' })
            .int('limit must be a whole number')
            .min(1, 'limit must be at least 1')
            .max(MAX_RAW_LIMIT, `limit must be at most ${MAX_RAW_LIMIT}`)
            .optional()
            .describe("raw list: at most this many records, in tick order; summary: the same as nearest (the predecessor's mc_entities limit)"),
        })
        .strict()
        .superRefine((a, issue) => {
          const summary = a.summary ?? (a.nearest !== undefined || a.player !== undefined);
          if (!summary) {
            for (const field of ['nearest', 'player'] as const) {
              if (a[field] !== undefined) issue.addIssue({ code: 'custom', path: [field], message: `${field} only applies to the summary: set summary to true or drop ${field}` });
            }
          } else if (a.limit !== undefined && a.nearest !== undefined) {
            issue.addIssue({ code: 'custom', path: ['limit'], message: 'limit and nearest mean the same in the summary: give one of them' });
          }
        }),
      output: entitiesResult,
      annotations: { readOnly: true, idempotent: true },
      // The predecessor's MCP mc_entities summarised; its local API answered the raw records.
      mcpDefaults: { summary: true },
      run: async (args, ctx) => {
        const summary = args.summary ?? (args.nearest !== undefined || args.player !== undefined);
        if (summary) {
          // The centre may not be the mod's radius centre, so the radius is applied here.
          return summarize(await ctx.request('ENTITIES'), { ...args, nearest: args.nearest ?? args.limit }, ctx);
        }
        const { radius, types, limit } = args;
        const reply = await ctx.request(radius ? `ENTITIES ${javaDouble(radius)}` : 'ENTITIES');
        if (types === undefined && limit === undefined) return reply;
        const wanted = typesOf(types);
        const all = entityList(reply);
        const matched = wanted ? all.filter((e) => typeof e.type === 'string' && wanted.has(typeId(e.type))) : all;
        const kept = limit === undefined ? matched : matched.slice(0, limit);
        return { ...reply, entities: kept, total: all.length, matched: matched.length, truncated: kept.length < matched.length };
      },
    }),
  ],
});

export default entitiesPlugin;
