import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';

/** The daemon process's memory, as the OS and V8 count it (bytes). */
function memory(): { rssBytes: number; heapUsedBytes: number; heapTotalBytes: number; externalBytes: number } {
  const m = process.memoryUsage();
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed, heapTotalBytes: m.heapTotal, externalBytes: m.external };
}

export const statusPlugin = definePlugin({
  name: 'status',
  version: '1.0.0',
  apiVersion: 1,
  guide: 'Whenever something fails, call `status`: it shows the link, the last connection error and the event counters.',
  tools: [
    defineTool({
      name: 'status',
      description:
        'Health of the bridge: whether the game (mod) is connected, which port and vantage, the last connection error, ' +
        "buffered event counters, uptime and the daemon process's memory (RSS, V8 heap). Costs nothing and never touches the game; call it first when something fails.",
      input: z.object({}).strict(),
      output: z.looseObject({
        connected: z.boolean(),
        vantage: z.string(),
        lastError: z.string().nullable().optional(),
        capabilities: z.array(z.string()).nullable().optional(),
        capsSource: z.string().optional(),
        pid: z.number().int().optional().describe('the daemon process id (absent when no daemon answers)'),
        // Absent when no daemon answers and the MCP front-end answers for it (default-surface.ts).
        memory: z
          .object({
            rssBytes: z.number().int().nonnegative(),
            heapUsedBytes: z.number().int().nonnegative(),
            heapTotalBytes: z.number().int().nonnegative(),
            externalBytes: z.number().int().nonnegative(),
          })
          .optional(),
      }),
      annotations: { readOnly: true, idempotent: true },
      run: async (_args, ctx) => ({ ...ctx.host.status(), pid: process.pid, memory: memory() }),
    }),
  ],
});

export default statusPlugin;
