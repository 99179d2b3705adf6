/**
 * The zod check of what a config file exported: the public config schema (whose `z.input` is
 * `McbridgeConfig`, core/authoring/config-schema.ts) with the checks that need the daemon.
 */
import { z } from 'zod';
import { groupKeys } from '../../authoring/options.js';
import { configObject } from '../../authoring/config-schema.js';
import { builtinPlugins } from '../builtins.js';
import { configurableBuiltins } from './builtin-options.js';
import { LINK_KEYS, targetsSchema } from './targets.js';

/** Top-level keys, checked strictly so a typo is named rather than ignored. */
export const configSchema = configObject
  .extend({
    targets: targetsSchema.optional(),
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
