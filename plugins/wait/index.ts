import { z } from 'zod';
import { definePlugin, defineTool, TICK_MS, type VerbSpec } from 'mcbridge';
import { modReply } from 'mcbridge/kit';

/** One hour of game time: the cap the mod's control protocol also uses. */
const MAX_WAIT_TICKS = 72_000;
/** Beyond the ticks themselves: a busy server ticks slower than 20 times a second. */
const WAIT_SLACK_MS = 20_000;

/** What the mod's Integer.parseInt accepts: anything else is a `bad command` error. */
const JAVA_INT = /^[+-]?\d{1,10}$/;

/**
 * `WAIT n` answers after n ticks (docs/protocol.md#server-vantage-verbs): its timeout grows with n, and with n > 0
 * it runs on a connection of its own so it holds up no other call. With n <= 0 the reader thread
 * acks at once, so it is immediate, but only for an argument the mod parses: an
 * immediate verb must not fail with anything but `unknown command`.
 */
function waitVerb(arg: string): VerbSpec {
  const parsed = Number.parseInt(arg, 10);
  const ticks = Number.isFinite(parsed) ? Math.max(0, parsed) : 0;
  const parsesAsInt = JAVA_INT.test(arg) && parsed >= -(2 ** 31) && parsed < 2 ** 31;
  return {
    replies: ['wait_ack'],
    timeoutMs: ticks * TICK_MS + WAIT_SLACK_MS,
    blocking: ticks > 0,
    requires: ['wait'],
    // Over control protocol 1 replies carry ids: a long WAIT needs no connection of its own there.
    control: { op: 'wait', params: { ticks } },
    ...(ticks === 0 && parsesAsInt ? { immediate: true } : {}),
  };
}

export const waitPlugin = definePlugin({
  name: 'wait',
  version: '1.0.0',
  apiVersion: 1,
  guide: '`wait` lets game time pass (20 ticks = 1 second); a long wait reports progress, and cancelling the request stops it in the daemon.',
  requires: { caps: ['wait'] },
  verbs: { WAIT: waitVerb },
  tools: [
    defineTool({
      name: 'wait',
      description:
        'Block until the server has ticked N more times (20 ticks = 1 second at normal speed), then return. Use it to ' +
        'let the game advance after an action. It holds up no other call and stops at once when cancelled. ' +
        'To wait for something to happen rather than for time to pass, wait for an event instead.',
      input: z
        .object({
          // Default 0 (answered at once), as the predecessor's `wait` without ticks was.
          ticks: z
            .number()
            .int('ticks must be a whole number')
            .min(0)
            .max(MAX_WAIT_TICKS, `ticks must be at most ${MAX_WAIT_TICKS} (one hour)`)
            .default(0)
            .describe('game ticks to wait (20 = 1 second); default 0 returns at once'),
        })
        .strict(),
      output: modReply({ ticks: z.number().int(), elapsedMs: z.number() }),
      annotations: { readOnly: true, idempotent: false },
      run: async ({ ticks }, ctx) => {
        const started = Date.now();
        // An estimate from wall time: the mod itself reports nothing until the end. Nothing for a
        // wait of 2 s or less, and nothing at the end: the answer follows at once, and a client
        // drops progress that has no message or comes with the result (issue 27).
        const timer = ticks > 40 ? setInterval(() => ctx.progress(Math.min(ticks, Math.floor((Date.now() - started) / TICK_MS)), ticks, 'waiting for ticks'), 1_000) : undefined;
        try {
          // The ack's `detail` is always "ticks=0" whatever was waited (mod-protocol §2.11): `ticks` says it instead.
          const { detail: _alwaysZero, ...reply } = await ctx.request(`WAIT ${ticks}`);
          return { ...reply, ticks, elapsedMs: Date.now() - started };
        } finally {
          if (timer) clearInterval(timer);
        }
      },
    }),
  ],
});

export default waitPlugin;
