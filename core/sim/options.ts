/**
 * Checks the options a simulated mod is started with. They come from tests, configs and plugin
 * authors' code, often untyped: a player without coordinates once made STATE carry `NaN`, which is
 * not JSON, and every `state` call then waited for its timeout. A wrong option is refused at
 * start, naming the option and showing what to write instead.
 */
import { z } from 'zod';

const finite = z.number();
const int = z.number().int();
const id = z.string().min(1);

const viewOverride = z.union([
  z
    .object({
      type: z.literal('block'),
      pos: z.tuple([int, int, int]),
      block: z.string().optional(),
      face: z.enum(['down', 'up', 'north', 'south', 'west', 'east']).optional(),
    })
    .strict(),
  z.object({ type: z.literal('entity'), uuid: z.string() }).strict(),
  z.object({ type: z.literal('miss') }).strict(),
]);

const playerSpec = z
  .object({
    name: z.string().min(1),
    uuid: z.string().optional(),
    x: finite.optional(),
    y: finite.optional(),
    z: finite.optional(),
    dimension: id.optional(),
    gameMode: z.enum(['survival', 'creative', 'adventure', 'spectator']).optional(),
    yaw: finite.optional(),
    pitch: finite.optional(),
    health: finite.min(0).optional(),
    view: viewOverride.optional(),
  })
  .strict();

const entitySpec = z
  .object({
    type: id,
    uuid: z.string().optional(),
    x: finite,
    y: finite,
    z: finite,
    dimension: id.optional(),
    vx: finite.optional(),
    vy: finite.optional(),
    vz: finite.optional(),
    yaw: finite.optional(),
    pitch: finite.optional(),
    health: finite.min(0).optional(),
    onGround: z.boolean().optional(),
    invulnerable: z.boolean().optional(),
    customName: z.string().optional(),
    tags: z.array(z.string()).optional(),
    item: z
      .object({ id, count: int.min(1) })
      .strict()
      .optional(),
    vehicle: z.string().optional(),
  })
  .strict();

const worldSpec = z
  .object({
    levelName: z
      .string()
      .regex(/^[^/\\]+$/, 'must be a folder name')
      .optional(),
    dimensions: z.array(id).min(1).optional(),
    dayTime: int.optional(),
    gameTime: int.optional(),
    spawn: z.object({ x: finite, y: finite, z: finite }).strict().optional(),
    floorY: int.optional(),
    entities: z.array(entitySpec).optional(),
    players: z.array(playerSpec).optional(),
    blocks: z.array(z.object({ dimension: id.optional(), x: int, y: int, z: int, block: id }).strict()).optional(),
  })
  .strict();

const port = int.min(0).max(65535);

const controlSpec = z
  .object({
    port: port.optional(),
    maxFrameBytes: int
      .min(64)
      .max(64 * 1024 * 1024)
      .optional(),
    maxPendingRequests: int.min(1).max(4096).optional(),
    requestTimeoutMillis: int.min(1).optional(),
    eventBuffer: int.min(1).max(1_000_000).optional(),
    maxDroppedEvents: int.min(0).optional(),
    handshakeSeconds: finite.positive().max(3600).optional(),
    idleSeconds: finite.positive().optional(),
    certFile: z.string().min(1).optional(),
    keyFile: z.string().min(1).optional(),
  })
  .strict()
  .refine((c) => (c.certFile === undefined) === (c.keyFile === undefined), { message: 'certFile and keyFile come together (a PEM pair)', path: ['certFile'] });

export const simOptionsSchema = z
  .object({
    vantage: z.enum(['server', 'client']).optional(),
    host: z.string().min(1).optional(),
    port: port.optional(),
    basePort: port
      .min(1)
      .max(65535 - 19)
      .optional(),
    dir: z.string().min(1).optional(),
    version: z.string().min(1).optional(),
    capabilities: z.array(z.string()).optional(),
    seed: int.optional(),
    name: z.string().min(1).max(64).optional(),
    tps: finite.positive().max(1000).optional(),
    autoTick: z.boolean().optional(),
    lineEnding: z.enum(['\n', '\r\n']).optional(),
    eventBeforeHello: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
    replyDelayMs: z.union([finite.min(0), z.record(z.string(), finite.min(0))]).optional(),
    silentVerbs: z.array(z.string()).optional(),
    world: worldSpec.optional(),
    players: z.array(playerSpec).optional(),
    entities: z.array(entitySpec).optional(),
    contextCacheSize: int.min(1).optional(),
    contextTtlSeconds: finite.positive().optional(),
    now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function returning epoch milliseconds').optional(),
    inWorld: z.boolean().optional(),
    connectedServer: z.string().nullable().optional(),
    localPlayer: z.string().optional(),
    worldDisk: z.union([z.literal(false), z.object({ bytes: int.min(0).optional(), layout: z.enum(['26.x', 'legacy']).optional(), fresh: z.boolean().optional() }).strict()]).optional(),
    deaths: z.enum(['instant', 'vanilla']).optional(),
    motion: z.boolean().optional(),
    faults: z.array(z.looseObject({ target: z.string().min(1), times: int.min(1).optional() })).optional(),
    control: z.union([z.boolean(), controlSpec]).optional(),
  })
  .strict();

/** What to write, for the options people get wrong most. */
const EXAMPLES: Record<string, string> = {
  players: "players: [{ name: 'Alex' }] or [{ name: 'Alex', x: 0.5, y: 64, z: 0.5 }] (x, y, z default to the world spawn)",
  entities: "entities: [{ type: 'minecraft:pig', x: 1.5, y: 64, z: 2.5 }]",
  world: 'world: { dayTime: 13000, spawn: { x: 0, y: 64, z: 0 } } (see defaultWorld())',
  replyDelayMs: "replyDelayMs: 200 or { STATE: 500, '*': 0 }",
  worldDisk: 'worldDisk: false, or { bytes: 1048576, layout: "26.x", fresh: true }',
  control: "control: true, or { port: 0, maxFrameBytes: 65536, certFile: 'server.crt', keyFile: 'server.key' }",
};

/** A refused sim option: `code` as in mcbridge's errors, a message that says what to write. */
export class SimOptionsError extends Error {
  readonly code = 'invalid_params';

  constructor(
    message: string,
    readonly problems: Array<{ path: string; message: string }>,
  ) {
    super(message);
    this.name = 'SimOptionsError';
  }
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('') || '(options)';
}

/** Throws SimOptionsError unless `options` are valid simulated-mod options. */
export function checkSimOptions(options: unknown): void {
  const parsed = simOptionsSchema.safeParse(options ?? {});
  if (parsed.success) return;
  const problems = parsed.error.issues.map((issue) => ({ path: pathText(issue.path), message: issue.message }));
  const keys = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')));
  const hints = [...keys].filter((k) => EXAMPLES[k]).map((k) => `write ${EXAMPLES[k]}`);
  const lines = problems.map((p) => `${p.path}: ${p.message}`);
  throw new SimOptionsError(`invalid simulated-mod options: ${[...lines, ...hints].join('; ')}`, problems);
}
