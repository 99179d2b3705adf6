import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';

export const capabilitiesPlugin = definePlugin({
  name: 'capabilities',
  version: '1.0.0',
  apiVersion: 1,
  // The protocol's own verb: every mod answers it, whatever it advertises (mod-protocol.md §2.6).
  verbs: { CAPS: { replies: ['capabilities'], immediate: true } },
  tools: [
    defineTool({
      name: 'capabilities',
      description:
        'What the connected mod advertises (raw CAPS) and the toolkit surface it allows: every tool, supported or not, ' +
        'with the missing capability and the reason (`operations` lists them all in one place, with their CAPS and ' +
        'whether they change the game). Asks the mod again when it is connected, so the answer is current.',
      input: z.object({}).strict(),
      annotations: { readOnly: true, idempotent: true },
      run: async (_args, ctx) => {
        let caps: Record<string, unknown> | null = null;
        let refreshError: string | undefined;
        const connected = ctx.host.status().connected === true;
        if (connected) {
          try {
            caps = await ctx.request('CAPS');
          } catch (err) {
            refreshError = (err as Error).message;
          }
        }
        const surface = ctx.host.surface();
        const dependencies = new Map(surface.unsupported.map((u) => [u.name, u.dependency]));
        const operations = ctx.host.manifest().tools.map((t) => ({
          name: t.name,
          supported: t.available,
          requires: t.requires,
          readOnly: t.annotations.readOnly === true,
          ...(t.missing ? { missing: t.missing } : {}),
          ...(t.reason ? { reason: t.reason } : {}),
          ...(dependencies.get(t.name) ? { dependency: dependencies.get(t.name) } : {}),
        }));
        return {
          ...(caps ?? { type: 'capabilities' }),
          connected,
          instance: surface.instance,
          modCapabilities: surface.modCapabilities,
          ...(refreshError ? { refreshError } : {}),
          surface,
          operations,
        };
      },
    }),
  ],
});

export default capabilitiesPlugin;
