/**
 * The option table's value specs (option-value.ts) as zod schemas, for the config file's schema
 * (core/daemon/config/schema.ts). Kept apart from the table so that reading the table loads no zod.
 */
import { z } from 'zod';
import { DAEMON_OPTIONS, type OptionKey, type OptionValue } from './options.js';
import { GLOB_MESSAGE, type ValueSpec } from './option-value.js';

function schemaOf(spec: ValueSpec): z.ZodType {
  switch (spec.type) {
    case 'integer':
    case 'number': {
      // A number that misses gets one message; a value of another type keeps zod's own.
      const error = (issue: { input?: unknown }) => (typeof issue.input === 'number' ? `expected ${spec.expected}` : undefined);
      const number = z
        .number({ error })
        .min(spec.min, { error })
        .max(spec.type === 'number' ? spec.max : (spec.max ?? Number.MAX_SAFE_INTEGER), { error });
      return spec.type === 'integer' ? number.int({ error }) : number;
    }
    case 'text':
      return z.string().min(spec.min ?? 1, { error: `expected ${spec.expected}` });
    case 'enum':
      return z.enum(spec.values as [string, ...string[]], { error: `expected ${spec.expected}` });
    case 'boolean':
      return z.boolean();
    case 'globs':
      return z.array(z.string().trim().min(1, GLOB_MESSAGE));
  }
}

const cache = new Map<OptionKey, z.ZodType>();

/** The zod schema of one option of the table. */
export function optionSchema<K extends OptionKey>(key: K): z.ZodType<OptionValue<K>> {
  let schema = cache.get(key);
  if (!schema) cache.set(key, (schema = schemaOf(DAEMON_OPTIONS[key].value)));
  return schema as z.ZodType<OptionValue<K>>;
}
