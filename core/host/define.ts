import { z } from 'zod';
import { McbridgeError } from './errors.js';
import { VERSION } from '../util/version.js';
import { satisfies, validRange } from './registry/semver.js';
import { HOST_API_VERSION, type AnyObjectSchema, type Plugin, type ToolSpec } from './plugin-api.js';

export const TOOL_NAME = /^[a-z][a-z0-9_]{0,47}$/;
/** Local API methods that no tool may shadow. */
export const RESERVED_NAMES = new Set(['ping', 'subscribe', 'unsubscribe', 'tools', 'cancel', 'stop']);

/** Identity at run time; gives a tool's handler the types inferred from its schemas. */
export function defineTool<I extends AnyObjectSchema, O extends z.ZodType | undefined = undefined, C = unknown>(spec: ToolSpec<I, O, C>): ToolSpec<I, O, C> {
  return spec;
}

/**
 * `defineTool` for a plugin with options: `ctx.config` has the type `options` parses to.
 * TypeScript cannot carry `definePlugin`'s options type into a `defineTool(...)` call inside it,
 * so the tools say which options they belong to:
 *
 *   const tool = defineTool.withOptions(skyOptions);
 *   definePlugin({ options: skyOptions, tools: [tool({ ..., run: async (args, ctx) => ctx.config.x })] });
 */
defineTool.withOptions = function withOptions<S extends z.ZodType>(options: S) {
  void options; // only its type is used
  return defineTool as <I extends AnyObjectSchema, O extends z.ZodType | undefined = undefined>(spec: ToolSpec<I, O, z.infer<S>>) => ToolSpec<I, O, z.infer<S>>;
};

/**
 * Identity at run time; validated when the host loads it. `ctx.config` of its setup and services
 * is typed from `options`; a tool made for other options is a type error.
 */
export function definePlugin<C = unknown>(plugin: Plugin<C>): Plugin<C> {
  return plugin;
}

// A plugin may bring its own copy of zod, so schemas are recognised by shape, not class.
export const zodSchema = z.custom<z.ZodType>((v) => typeof v === 'object' && v !== null && '_zod' in v && typeof (v as { safeParse?: unknown }).safeParse === 'function', {
  message: 'expected a zod 4 schema',
});
export const zodObjectSchema = z.custom<AnyObjectSchema>((v) => zodSchema.safeParse(v).success && (v as { _zod: { def: { type?: string } } })._zod.def.type === 'object', {
  message: 'expected a zod object schema, e.g. z.object({})',
});

export const annotationsShape = z
  .object({
    readOnly: z.boolean().optional(),
    destructive: z.boolean().optional(),
    idempotent: z.boolean().optional(),
    openWorld: z.boolean().optional(),
  })
  .strict();

export const toolNameShape = z
  .string()
  .regex(TOOL_NAME, 'must match ^[a-z][a-z0-9_]{0,47}$ (lower case, digits, underscores)')
  .refine((n) => !RESERVED_NAMES.has(n), 'is reserved for a local API method');

const oneOrMany = (item: z.ZodType) => z.union([item, z.array(item).min(1)]);

export const toolScopeShape = z
  .object({
    vantage: oneOrMany(z.enum(['server', 'client'])).optional(),
    instance: oneOrMany(z.string().min(1)).optional(),
    minecraft: oneOrMany(z.string().min(1)).optional(),
    transport: oneOrMany(z.enum(['legacy', 'control'])).optional(),
  })
  .strict();

const toolShape = z
  .object({
    name: toolNameShape,
    description: z.string().trim().min(1, 'must say what the tool does, for a model'),
    input: zodObjectSchema,
    output: zodSchema.optional(),
    requires: z.array(z.string().trim().min(1)).optional(),
    annotations: annotationsShape.optional(),
    uses: z.array(z.string().regex(TOOL_NAME, 'must name a tool (^[a-z][a-z0-9_]{0,47}$)')).optional(),
    only: toolScopeShape.optional(),
    paramAliases: z.record(z.string().min(1), z.string().min(1)).optional(),
    passthrough: z.boolean().optional(),
    mcpDefaults: z.record(z.string(), z.unknown()).optional(),
    acrossTargets: z.enum(['each', 'first']).optional(),
    run: z.custom<ToolSpec['run']>((v) => typeof v === 'function', { message: 'expected a function (args, ctx) => result' }),
  })
  .superRefine((tool, issue) => {
    // Each MCP default must be a value the parameter itself accepts, or every MCP call would fail.
    const shape = (tool.input as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
    for (const [key, value] of Object.entries(tool.mcpDefaults ?? {})) {
      const param = shape[key];
      if (!param) issue.addIssue({ code: 'custom', path: ['mcpDefaults', key], message: `names no parameter of the tool (parameters: ${Object.keys(shape).join(', ') || 'none'})` });
      else if (!param.safeParse(value).success) issue.addIssue({ code: 'custom', path: ['mcpDefaults', key], message: `is not a value the parameter '${key}' accepts` });
    }
  });

// Plugin.verbs: upper-case verb names (docs/protocol.md#server-vantage-verbs), each a spec or a function of the
// argument; what such a function returns is checked when it runs (registry/verb-table.ts).
export const verbSpecShape = z
  .object({
    replies: z.array(z.string().trim().min(1, 'must be a reply type, e.g. "state"')).min(1, 'must name at least one reply type, e.g. ["state"]'),
    timeoutMs: z.number().int('must be a whole number of milliseconds').positive('must be a positive number of milliseconds').optional(),
    blocking: z.boolean().optional(),
    immediate: z.boolean().optional(),
    requires: z.array(z.string().trim().min(1)).optional(),
    write: z.boolean().optional(),
    control: z
      .object({
        op: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a control op name, e.g. "state"'),
        params: z.record(z.string(), z.unknown()).optional(),
      })
      .strict()
      .optional(),
    legacy: z.boolean().optional(),
  })
  .strict()
  .refine((spec) => spec.legacy !== false || spec.control !== undefined, {
    message: 'has no form on either transport: give `control: {op}` to a verb that is not sent over the legacy link',
    path: ['legacy'],
  })
  .refine((spec) => !(spec.blocking && spec.immediate), {
    message: 'cannot be both blocking (answered after ticks, on a connection of its own) and immediate (answered at once): keep one',
    path: ['immediate'],
  });

const verbsShape = z.record(
  z.string().regex(/^[A-Z][A-Z0-9_]*$/),
  z.union([z.custom((v) => typeof v === 'function'), verbSpecShape], {
    error: (issue) => (issue.code === 'invalid_union' ? 'must be {replies: [...]} or a function (arg) => {replies: [...]}' : undefined),
  }),
  { error: (issue) => (issue.code === 'invalid_key' ? 'must be an upper-case verb name (^[A-Z][A-Z0-9_]*$), e.g. "PING"' : undefined) },
);

const pluginShape = z.object({
  name: z.string().regex(/^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/, 'must be a package-style name (lower case, digits, . _ -)'),
  version: z.string().trim().min(1, 'must be a version string, e.g. "1.0.0"'),
  apiVersion: z.number().int().positive(),
  description: z.string().optional(),
  guide: z.string().trim().min(1, 'must say how to use the tools, or be left out').max(2000, 'must be a short guide (2000 characters at most)').optional(),
  requires: z
    .object({
      caps: z.array(z.string().trim().min(1)).optional(),
      mcbridge: z.string().refine(validRange, 'must be a semver range, e.g. ">=0.1.0" or "^1.0.0"').optional(),
    })
    .optional(),
  options: zodSchema.optional(),
  tools: z.array(toolShape).optional(),
  services: z
    .array(
      z.object({
        name: z.string().min(1),
        start: z.custom((v) => typeof v === 'function', { message: 'expected a function' }),
        stop: z.custom((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
        status: z.custom((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
      }),
    )
    .optional(),
  setup: z.custom((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
  dispose: z.custom((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
  verbs: verbsShape.optional(),
});

export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/**
 * Check a plugin object before anything of it is registered. Errors name the plugin and
 * the field, and say what is expected.
 */
export function validatePlugin(candidate: unknown, where: string): Plugin {
  const label = typeof (candidate as { name?: unknown })?.name === 'string' ? `plugin '${(candidate as { name: string }).name}'` : `the plugin from ${where}`;
  if (typeof candidate !== 'object' || candidate === null) {
    throw new McbridgeError('invalid_params', `${label} is not a plugin object: expected definePlugin({...}), got ${candidate === null ? 'null' : typeof candidate}`);
  }
  const parsed = pluginShape.safeParse(candidate);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = formatIssuePath(issue.path);
      const tools = (candidate as Plugin).tools;
      const toolIndex = issue.path[0] === 'tools' && typeof issue.path[1] === 'number' ? issue.path[1] : undefined;
      const toolName = toolIndex !== undefined ? tools?.[toolIndex]?.name : undefined;
      return `${path}${toolName ? ` (tool '${toolName}')` : ''} ${issue.message}`;
    });
    throw new McbridgeError('invalid_params', `${label} (${where}) is invalid: ${problems.join('; ')}`, { plugin: label, problems });
  }
  const plugin = candidate as Plugin;
  if (plugin.apiVersion > HOST_API_VERSION) {
    throw new McbridgeError(
      'invalid_params',
      `${label} targets mcbridge plugin API ${plugin.apiVersion}, but this host speaks API ${HOST_API_VERSION}: upgrade mcbridge or use an older version of the plugin`,
      { plugin: plugin.name, needs: plugin.apiVersion, host: HOST_API_VERSION },
    );
  }
  const range = plugin.requires?.mcbridge;
  if (range !== undefined && !satisfies(VERSION, range)) {
    throw new McbridgeError('invalid_params', `${label} needs mcbridge ${range}, but this host is mcbridge ${VERSION}: install a matching mcbridge or a version of the plugin made for ${VERSION}`, {
      plugin: plugin.name,
      needs: range,
      host: VERSION,
    });
  }
  const seen = new Set<string>();
  for (const tool of plugin.tools ?? []) {
    if (seen.has(tool.name)) throw new McbridgeError('invalid_params', `${label} defines the tool '${tool.name}' twice`);
    seen.add(tool.name);
  }
  return plugin;
}
