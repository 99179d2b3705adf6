import { z } from 'zod';
import { definePlugin, defineTool, type Manifest, type ManifestTool, type Surface } from 'mcbridge';
import { firstSentence } from 'mcbridge/kit';

/**
 * One tool of the surface. The predecessor's fields first (`description` is its one-line
 * summary; `dependency` the upstream issue URL, `dependencyLabel` "<repo>#<n> (<title>)"),
 * then ours: `readOnly`, `hiddenBy`, `plugin`.
 */
const operation = z.object({
  name: z.string(),
  description: z.string(),
  requires: z.array(z.string()),
  supported: z.boolean(),
  missing: z.array(z.string()).optional(),
  reason: z.string().optional(),
  dependency: z.string().optional(),
  dependencyLabel: z.string().optional(),
  readOnly: z.boolean(),
  hiddenBy: z.string().optional(),
  plugin: z.string(),
});

const hiddenTool = z.object({
  name: z.string(),
  available: z.literal(false),
  missing: z.array(z.string()).optional(),
  reason: z.string().optional(),
  dependency: z.string().optional(),
});

export const capabilitiesResult = z.looseObject({
  type: z.string(),
  connected: z.boolean(),
  instance: z.string().nullable(),
  modCapabilities: z.array(z.string()).nullable(),
  refreshError: z.string().optional(),
  surface: z.object({
    instance: z.string().nullable(),
    vantage: z.string(),
    modCapabilities: z.array(z.string()).nullable(),
    /** Names, as the predecessor gave them. */
    supported: z.array(z.string()),
    unsupported: z.array(z.string()),
    operations: z.array(operation),
    note: z.string().optional(),
    capsSource: z.string(),
    /** Each unsupported tool with its missing CAPS and reason. */
    hidden: z.array(hiddenTool),
  }),
  /** The same list as `surface.operations`, where this toolkit first put it. */
  operations: z.array(operation),
});

function toOperation(t: ManifestTool): z.infer<typeof operation> {
  return {
    name: t.name,
    description: firstSentence(t.description),
    requires: t.requires,
    supported: t.available,
    ...(t.missing ? { missing: t.missing } : {}),
    ...(t.reason ? { reason: t.reason } : {}),
    ...(t.dependency ? { dependency: t.dependency.url, dependencyLabel: `${t.dependency.issue} (${t.dependency.label})` } : {}),
    readOnly: t.annotations.readOnly === true,
    ...(t.hiddenBy ? { hiddenBy: t.hiddenBy } : {}),
    plugin: t.plugin,
  };
}

/** The surface in the predecessor's shape, with ours beside it (also the MCP front-end's answer while no daemon answers). */
export function describeSurface(surface: Surface, manifest: Manifest): { surface: z.infer<typeof capabilitiesResult>['surface']; operations: z.infer<typeof operation>[] } {
  const operations = manifest.tools.map(toOperation);
  return {
    surface: {
      instance: surface.instance,
      vantage: surface.vantage,
      modCapabilities: surface.modCapabilities,
      supported: operations.filter((o) => o.supported).map((o) => o.name),
      unsupported: operations.filter((o) => !o.supported).map((o) => o.name),
      operations,
      ...(surface.note ? { note: surface.note } : {}),
      capsSource: surface.capsSource,
      hidden: surface.unsupported.map((u) => ({ ...u, available: false as const })),
    },
    operations,
  };
}

export const capabilitiesPlugin = definePlugin({
  name: 'capabilities',
  version: '1.0.0',
  apiVersion: 1,
  guide: 'Start with `capabilities`: it says whether the game is connected, which vantage it is, and for every tool whether the connected mod supports it and why not.',
  // The protocol's own verb: every mod answers it, whatever it advertises (docs/protocol.md#capabilities-caps).
  verbs: { CAPS: { replies: ['capabilities'], immediate: true, control: { op: 'capabilities' } } },
  tools: [
    defineTool({
      name: 'capabilities',
      description:
        'What the connected mod advertises (raw CAPS) and the toolkit surface it allows: `surface.supported` and ' +
        '`surface.unsupported` name the tools, and `operations` lists every tool with its CAPS, whether it is supported ' +
        'now (if not: the missing capability and the reason) and whether it changes the game. Asks the mod again when ' +
        'it is connected, so the answer is current.',
      input: z.object({}).strict(),
      output: capabilitiesResult,
      annotations: { readOnly: true, idempotent: true },
      run: async (_args, ctx) => {
        let caps: Record<string, unknown> | null = null;
        let refreshError: string | undefined;
        const connected = ctx.host.connected;
        if (connected) {
          try {
            caps = await ctx.request('CAPS');
          } catch (err) {
            refreshError = (err as Error).message;
          }
        }
        const surface = ctx.host.surface();
        return {
          ...(caps ?? {}),
          type: typeof caps?.type === 'string' ? caps.type : 'capabilities',
          connected,
          instance: surface.instance,
          modCapabilities: surface.modCapabilities,
          ...(refreshError ? { refreshError } : {}),
          ...describeSurface(surface, ctx.host.manifest()),
        };
      },
    }),
  ],
});

export default capabilitiesPlugin;
