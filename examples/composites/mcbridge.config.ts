/**
 * Composite tools, as a project would keep them in its mcbridge.config.ts. Run a daemon with them:
 *
 *   npx mcbridge run --sim --config examples/composites/mcbridge.config.ts
 *   npx mcbridge call count_entities
 *   npx mcbridge call frozen_until '{"until": "^go$", "timeoutSeconds": 30}'   # then say "go" in chat
 */
import { z } from 'zod';
import { defineComposite, defineConfig } from 'mcbridge';

const regex = z
  .string()
  .min(1)
  .refine((re) => {
    try {
      new RegExp(re);
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid regular expression');

/** Read-only: it calls only `entities`, so read-only mode keeps it. */
export const countEntities = defineComposite({
  name: 'count_entities',
  description:
    'How many entities of each type the game ticks, e.g. {"minecraft:zombie": 3}, optionally within `radius` blocks ' +
    'of the first online player. Smaller than the full `entities` answer when you only need numbers.',
  input: z.object({ radius: z.number().positive().optional() }).strict(),
  uses: ['entities'],
  run: async ({ args, call }) => {
    const { entities } = (await call('entities', args.radius ? { radius: args.radius } : {})) as { entities: Array<{ type: string }> };
    const counts: Record<string, number> = {};
    for (const e of entities) counts[e.type] = (counts[e.type] ?? 0) + 1;
    return { total: entities.length, byType: counts };
  },
});

/**
 * Freezes the game until someone says the word. `defer` undoes the freeze on every path:
 * the match, a timeout, an error, or the caller cancelling.
 */
export const frozenUntil = defineComposite({
  name: 'frozen_until',
  description:
    'Freeze the game clock (tick freeze) until a chat message or a marker matches `until` (a regular expression), ' +
    'then unfreeze and return that event and how many chat messages came while frozen. The game is unfrozen whatever ' +
    'happens: match, timeout, error or cancel.',
  input: z.object({ until: regex, timeoutSeconds: z.number().positive().max(600).default(60) }).strict(),
  uses: ['command'],
  annotations: { destructive: false },
  run: async ({ args, command, waitFor, defer, progress, events, startCursor }) => {
    const pattern = new RegExp(args.until);
    await command('tick freeze');
    defer((ctx) => ctx.command('tick unfreeze'));
    progress(0, 1, 'frozen; waiting for a matching chat message or marker');
    const event = await waitFor((e) => (e.category === 'chat' || e.category === 'mark') && typeof e.text === 'string' && pattern.test(e.text), { timeoutMs: args.timeoutSeconds * 1000 });
    progress(1, 1, 'matched');
    // Everything recorded since this call began, as any tool reads it.
    const chat = events.query({ since: startCursor, filter: (e) => e.category === 'chat' && e.seq <= event.seq });
    return { event, chatWhileFrozen: chat.events.length };
  },
});

export default defineConfig({
  composites: [countEntities, frozenUntil],
});
