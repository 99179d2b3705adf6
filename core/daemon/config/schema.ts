/** The zod check of what a config file exported; its types are in core/authoring/config.ts. */
import { z } from 'zod';
import { groupKeys, OPTION_KEYS, type OptionKey, type OptionValue } from '../../authoring/options.js';
import { optionSchema } from '../../authoring/option-schema.js';
import { builtinPlugins } from '../builtins.js';
import { configurableBuiltins } from './builtin-options.js';
import { LINK_KEYS, targetsSchema } from './targets.js';

type OptionSchemas = { [K in OptionKey]: z.ZodOptional<z.ZodType<OptionValue<K>>> };

const optionSchemas = Object.fromEntries(OPTION_KEYS.map((key) => [key, optionSchema(key).optional()])) as OptionSchemas;

/** Top-level keys, checked strictly so a typo is named rather than ignored. */
export const configSchema = z
  .object({
    ...optionSchemas,
    targets: targetsSchema.optional(),
    plugins: z.array(z.unknown()).optional(),
    composites: z.array(z.unknown()).optional(),
    // A built-in plugin's options under its name (the spelling before `plugins: [['webhook', {...}]]`),
    // checked by the plugin's own schema in builtin-options.ts.
    ...Object.fromEntries(configurableBuiltins(builtinPlugins).map((p) => [p.name, z.unknown().optional()])),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.targets === undefined) return;
    for (const key of LINK_KEYS) {
      if (config[key] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: `beside "targets" it would be ambiguous: give ${key} inside each target that needs it` });
      }
    }
  });

/** The options read when the daemon starts: a change in the config waits for a restart. */
export const DAEMON_KEYS = groupKeys('daemon');
