/**
 * mcbridge-plugin-sky: the time of day and the weather, as tools an agent can call.
 *
 * Everything here goes through the public plugin API (`mcbridge`): the tools need the mod's
 * `command` capability, so they vanish from every surface on a mod that does not advertise it.
 */
import { z } from 'zod';
import { definePlugin, defineTool, McbridgeError, type ToolContext } from 'mcbridge';

/** Named times of day, in ticks (a day is 24000 ticks; 0 is sunrise). */
export const TIMES = { sunrise: 23000, day: 1000, noon: 6000, sunset: 12000, night: 13000, midnight: 18000 } as const;
export type TimeName = keyof typeof TIMES;

export type Phase = 'day' | 'sunset' | 'night' | 'sunrise';

/** The part of the day a daytime (0-23999) falls in, as vanilla's sky draws it. */
export function phaseOf(daytime: number): Phase {
  if (daytime >= 23000) return 'sunrise';
  if (daytime >= 13000) return 'night';
  if (daytime >= 12000) return 'sunset';
  return 'day';
}

/** This plugin's options, validated by the host when the config lists `['mcbridge-plugin-sky', { ... }]`. */
export const skyOptions = z
  .object({
    /** How long `sky_weather` keeps the weather when the caller does not say. */
    defaultWeatherSeconds: z.number().int().min(1).max(1_000_000).default(600),
  })
  .strict();
export type SkyOptions = z.infer<typeof skyOptions>;

/** `defineTool` for this plugin: its tools' `ctx.config` is a `SkyOptions`. */
const skyTool = defineTool.withOptions(skyOptions);

/** One console command through the mod; its feedback lines. */
async function run(ctx: ToolContext, command: string): Promise<string[]> {
  const reply = await ctx.request(`CMD ${command}`);
  return Array.isArray(reply.output) ? reply.output.map(String) : [];
}

/** `time query <what>` as a number; the game's own words when it answers something else. */
async function queryTime(ctx: ToolContext, what: 'daytime' | 'day'): Promise<number> {
  const output = await run(ctx, `time query ${what}`);
  const match = /The time is (\d+)/.exec(output.join('\n'));
  if (!match) throw new McbridgeError('mod_error', `'time query ${what}' did not report a time: ${output.join(' / ') || 'no feedback'}`);
  return Number(match[1]);
}

const timeResult = z.object({
  daytime: z.number().int().describe('ticks since sunrise, 0-23999'),
  day: z.number().int().describe('days since the world began'),
  phase: z.enum(['day', 'sunset', 'night', 'sunrise']),
});

export const skyPlugin = definePlugin({
  name: 'mcbridge-plugin-sky',
  version: '1.0.0',
  // The plugin API this code was written against; a host that speaks an older one refuses it.
  apiVersion: 1,
  description: 'Time of day and weather',
  requires: { caps: ['command'], mcbridge: '>=0.1.0' },
  // The mod verb its tools send, and the reply that answers it (see docs/plugins.md, "Mod verbs").
  verbs: { CMD: { replies: ['cmd_ack'], requires: ['command'] } },
  options: skyOptions,
  tools: [
    skyTool({
      name: 'sky_time',
      description:
        'The time of day in the game: `daytime` in ticks since sunrise (0-23999), the day count, and the phase ' +
        '(day, sunset, night, sunrise). Cheap and changes nothing; call it before deciding whether it is dark.',
      input: z.object({}).strict(),
      output: timeResult,
      annotations: { readOnly: true, idempotent: true },
      run: async (_args, ctx) => {
        const daytime = await queryTime(ctx, 'daytime');
        const day = await queryTime(ctx, 'day');
        return { daytime, day, phase: phaseOf(daytime) };
      },
    }),
    skyTool({
      name: 'sky_set_time',
      description:
        'Set the time of day: a name (sunrise, day, noon, sunset, night, midnight) or ticks since sunrise (0-23999). ' +
        'Returns what was requested and the time the game reports afterwards, so you can see that it took.',
      input: z
        .object({
          to: z.union([z.enum(Object.keys(TIMES) as [TimeName, ...TimeName[]]), z.number().int().min(0).max(23_999)]).describe('a named time or ticks since sunrise'),
        })
        .strict(),
      annotations: { readOnly: false, destructive: false, idempotent: true },
      run: async ({ to }, ctx) => {
        const ticks = typeof to === 'number' ? to : TIMES[to];
        const feedback = await run(ctx, `time set ${ticks}`);
        const daytime = await queryTime(ctx, 'daytime');
        return { requested: { to, ticks }, feedback, verified: { daytime, phase: phaseOf(daytime), matches: daytime === ticks } };
      },
    }),
    skyTool({
      name: 'sky_weather',
      description:
        "Set the weather (clear, rain or thunder) for a number of seconds (default: the plugin's defaultWeatherSeconds). " +
        "The game has no weather query, so the result reports the command's feedback, not a verified state.",
      input: z
        .object({
          kind: z.enum(['clear', 'rain', 'thunder']),
          seconds: z.number().int().min(1).max(1_000_000).optional(),
        })
        .strict(),
      annotations: { readOnly: false, destructive: false, idempotent: true },
      run: async ({ kind, seconds }, ctx) => {
        const duration = seconds ?? ctx.config.defaultWeatherSeconds;
        const feedback = await run(ctx, `weather ${kind} ${duration}s`);
        return { requested: { kind, seconds: duration }, feedback, verified: null };
      },
    }),
  ],
  setup: (ctx) => {
    ctx.log.debug({ options: ctx.config }, 'sky plugin ready');
  },
});

export default skyPlugin;
