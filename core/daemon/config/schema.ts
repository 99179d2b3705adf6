/** The zod check of what a config file exported; its types are in core/authoring/config.ts. */
import { z } from 'zod';
import { groupKeys, OPTION_KEYS, type OptionKey, type OptionValue } from '../../authoring/options.js';
import { optionSchema } from '../../authoring/option-schema.js';
import { forkConfigEntry, webhookConfigEntry } from '../builtins.js';

type OptionSchemas = { [K in OptionKey]: z.ZodOptional<z.ZodType<OptionValue<K>>> };

const optionSchemas = Object.fromEntries(OPTION_KEYS.map((key) => [key, optionSchema(key).optional()])) as OptionSchemas;

/** Top-level keys, checked strictly so a typo is named rather than ignored. */
export const configSchema = z.object({
  ...optionSchemas,
  plugins: z.array(z.unknown()).optional(),
  composites: z.array(z.unknown()).optional(),
  // The built-in webhook plugin's options, checked by its own schema.
  webhook: webhookConfigEntry.optional(),
  // The built-in fork plugin's options (allowedWorldRoots).
  fork: forkConfigEntry.partial().optional(),
}).strict();

/** The options read when the daemon starts: a change in the config waits for a restart. */
export const DAEMON_KEYS = groupKeys('daemon');
/** Also read only at start: the built-in webhook forwarder's entry (its queues and spool outlive a config save), and fork's. */
export const RESTART_KEYS = [...DAEMON_KEYS, 'webhook', 'fork'] as const;
