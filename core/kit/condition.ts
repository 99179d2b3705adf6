/**
 * A dotted path into a value and one comparison: the `state` condition of `wait_for`, and the
 * `expect` step of a config scenario (core/daemon/config/scenarios.ts).
 */
import { z } from 'zod';

/** `playerList.0.name`, `playerList[0].name`, `levels.1.entities`. */
export const VALUE_PATH = /^[A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*$/;
export const CONDITION_OPERATORS = ['equals', 'not_equals', 'gte', 'lte', 'contains', 'exists'] as const;

/**
 * A path and one comparison; `label` names the field in messages (wait_for's state condition, a
 * scenario's expect step), `root` what the path reads.
 */
export function pathCondition(label: string, root: string) {
  return z
    .object({
      path: z
        .string({ error: `${label}.path must be a dotted path into ${root}, e.g. "players" or "playerList.0.name"` })
        .trim()
        .regex(VALUE_PATH, `${label}.path must be a dotted path into ${root}, e.g. "players", "playerList.0.name" or "playerList[0].dimension"`),
      equals: z.unknown().optional(),
      not_equals: z.unknown().optional(),
      gte: z
        .number({ error: `${label}.gte must be a number` })
        .finite()
        .optional(),
      lte: z
        .number({ error: `${label}.lte must be a number` })
        .finite()
        .optional(),
      contains: z.unknown().optional(),
      exists: z.boolean({ error: `${label}.exists must be true or false` }).optional(),
    })
    .strict()
    .superRefine((c, ctx) => {
      const given = CONDITION_OPERATORS.filter((op) => c[op] !== undefined);
      if (given.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          message: `${label} needs exactly one of ${CONDITION_OPERATORS.join(', ')} next to path (got ${given.length === 0 ? 'none' : given.join(', ')})`,
        });
      }
    });
}

export type PathCondition = z.infer<ReturnType<typeof pathCondition>>;

export function pathSegments(path: string): string[] {
  return path.replace(/\[(\d+)\]/g, '.$1').split('.');
}

export function readPath(root: unknown, path: string): { present: boolean; value?: unknown } {
  let node: unknown = root;
  for (const key of pathSegments(path)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return { present: false };
    node = (node as Record<string, unknown>)[key];
  }
  return { present: true, value: node };
}

export const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function conditionHolds(c: PathCondition, found: { present: boolean; value?: unknown }): boolean {
  const v = found.value;
  if (c.exists !== undefined) return found.present === c.exists;
  if (!found.present) return c.not_equals !== undefined;
  if (c.equals !== undefined) return sameValue(v, c.equals);
  if (c.not_equals !== undefined) return !sameValue(v, c.not_equals);
  if (c.gte !== undefined) return typeof v === 'number' && v >= c.gte;
  if (c.lte !== undefined) return typeof v === 'number' && v <= c.lte;
  if (c.contains !== undefined) {
    if (typeof v === 'string' && typeof c.contains === 'string') return v.includes(c.contains);
    if (Array.isArray(v)) return v.some((item) => sameValue(item, c.contains) || (typeof item === 'object' && item !== null && isSubset(c.contains, item)));
    return false;
  }
  return false;
}

/** `{name: "Alex"}` is contained in `{name: "Alex", uuid: …}`. */
function isSubset(part: unknown, whole: object): boolean {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) return false;
  return Object.entries(part).every(([k, v]) => sameValue((whole as Record<string, unknown>)[k], v));
}
