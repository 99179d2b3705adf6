import { z } from 'zod';
import { definePlugin, defineTool, TICK_MS } from 'mcbridge';

/** One hour of game time: the cap the mod's control protocol also uses. */
export const MAX_WAIT_TICKS = 72_000;

export const waitPlugin = definePlugin({
  name: 'wait',
  version: '1.0.0',
  apiVersion: 1,
  requires: { caps: ['wait'] },
  tools: [
    defineTool({
      name: 'wait',
      description:
        'Block until the server has ticked N more times (20 ticks = 1 second at normal speed), then return. Use it to ' +
        'let the game advance after an action. It holds up no other call and stops at once when cancelled. ' +
        'To wait for something to happen rather than for time to pass, wait for an event instead.',
      input: z.object({
        ticks: z.number().int('ticks must be a whole number').min(0).max(MAX_WAIT_TICKS, `ticks must be at most ${MAX_WAIT_TICKS} (one hour)`),
      }).strict(),
      annotations: { readOnly: true, idempotent: false },
      run: async ({ ticks }, ctx) => {
        const started = Date.now();
        // An estimate from wall time: the mod itself reports nothing until the end.
        const timer = ticks > 40
          ? setInterval(() => ctx.progress(Math.min(ticks, Math.floor((Date.now() - started) / TICK_MS)), ticks, 'waiting for ticks'), 1_000)
          : undefined;
        try {
          const reply = await ctx.request(`WAIT ${ticks}`);
          ctx.progress(ticks, ticks);
          return { ...reply, ticks, elapsedMs: Date.now() - started };
        } finally {
          if (timer) clearInterval(timer);
        }
      },
    }),
  ],
});

export default waitPlugin;
