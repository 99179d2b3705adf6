/**
 * A target's `launch`: a game server the daemon runs itself (docs/servers.md). The command comes
 * from config only: no tool argument, MCP client or model can change what is executed, so the
 * schema is the whole of what may run. Durations are seconds, or text such as `500ms`, `30s`, `5m`, `1h`.
 */
import { z } from 'zod';

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** A week: longer is a typo, not a wish. */
const MAX_DURATION_MS = 7 * 24 * 3_600_000;

/** Milliseconds of a duration as config writes it: seconds as a number, or `<n>ms|s|m|h`. */
export function durationMs(value: number | string): number {
  if (typeof value === 'number') return Math.round(value * 1000);
  const m = DURATION.exec(value.trim());
  return m ? Math.round(Number(m[1]) * UNIT_MS[m[2]!]!) : Number.NaN;
}

export const durationSchema = z.union([z.number(), z.string().max(32)], { error: "expected a duration: seconds as a number, or text such as '500ms', '30s', '5m', '1h'" }).refine((v) => {
  const ms = durationMs(v);
  return Number.isFinite(ms) && ms > 0 && ms <= MAX_DURATION_MS;
}, "expected a duration above 0 and at most a week: seconds as a number, or text such as '500ms', '30s', '5m', '1h'");

/** Where a reset takes the world from: a template folder (never changed) or a fork snapshot. */
export const worldSourceSchema = z.union([z.object({ template: z.string().min(1).max(4096) }).strict(), z.object({ fork: z.string().min(1).max(128) }).strict()], {
  error: "expected { template: 'templates/clean' } or { fork: '<snapshot name>' }",
});

/** What every launched server takes, real or simulated. */
const lifecycle = {
  /** The world folder put in place before each start; reset takes it again. */
  world: worldSourceSchema.optional(),
  /** How long start waits for the mod link (default 120 s; a sim: 30 s). */
  readyTimeout: durationSchema.optional(),
  /** How long stop waits after the console's `stop` before it terminates the process group (default 60 s). */
  stopTimeout: durationSchema.optional(),
  /** `on-crash`: restart with backoff after an exit nobody asked for (default `never`). */
  restart: z.enum(['never', 'on-crash']).optional(),
  /** Save and stop after this long without a call on the target; the next call starts it again. */
  idleStop: durationSchema.optional(),
  /** Report the server hung after its link has not answered for this long (default: never). */
  hungAfter: durationSchema.optional(),
  /** Start it when the daemon starts (default true); false waits for `server_start` or a call. */
  autoStart: z.boolean().optional(),
  /** A server left running by a daemon that was killed is adopted (kept, watched) instead of stopped. */
  adopt: z.boolean().optional(),
};

const envSchema = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an environment variable name: letters, digits and _'), z.string().max(32_768))
  .refine((env) => Object.keys(env).length <= 256, 'at most 256 environment variables');

export const launchCommandSchema = z
  .object({
    /** argv, run without a shell: `['java', '-Xmx2G', '-jar', 'server.jar', 'nogui']`. */
    /** Absent, or false: a command of its own. */
    sim: z.literal(false).optional(),
    command: z.array(z.string().min(1).max(4096)).min(1, 'give the program to run and its arguments').max(256),
    /** The server's folder (its port file and world are found there); relative to the config's folder. */
    cwd: z.string().min(1).max(4096),
    env: envSchema.optional(),
    /** The world folder's name inside cwd (default `world`). */
    worldDir: z.string().min(1).max(255).optional(),
    ...lifecycle,
  })
  .strict();

export const launchSimSchema = z
  .object({
    /** The simulated mod as a child process of its own (`mcbridge sim`), run as a real server is. */
    sim: z.literal(true),
    /** Its folder (default: `servers/<target>` in the daemon's state folder). */
    cwd: z.string().min(1).max(4096).optional(),
    seed: z.number().int().nonnegative().optional(),
    ...lifecycle,
  })
  .strict();

/** Told apart by `sim`, so a mistake is named inside the shape that was meant. */
export const launchSchema = z.discriminatedUnion('sim', [launchCommandSchema, launchSimSchema], {
  error: 'expected { command: [...], cwd } or { sim: true }',
});

export type LaunchConfig = z.infer<typeof launchSchema>;
export type LaunchCommandConfig = z.infer<typeof launchCommandSchema>;
export type LaunchSimConfig = z.infer<typeof launchSimSchema>;
