/** The `state` condition of `wait_for`: a dotted path into the STATE reply and one comparison. */
import { z } from 'zod';

/** `playerList.0.name`, `playerList[0].name`, `levels.1.entities`. */
const STATE_PATH = /^[A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*$/;
const OPERATORS = ['equals', 'not_equals', 'gte', 'lte', 'contains', 'exists'] as const;

export const stateCondition = z
  .object({
    path: z
      .string({ error: 'state.path must be a dotted path into the STATE reply, e.g. "players" or "playerList.0.name"' })
      .trim()
      .regex(STATE_PATH, 'state.path must be a dotted path into the STATE reply, e.g. "players", "playerList.0.name" or "playerList[0].dimension"'),
    equals: z.unknown().optional(),
    not_equals: z.unknown().optional(),
    gte: z.number({ error: 'state.gte must be a number' }).finite().optional(),
    lte: z.number({ error: 'state.lte must be a number' }).finite().optional(),
    contains: z.unknown().optional(),
    exists: z.boolean({ error: 'state.exists must be true or false' }).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const given = OPERATORS.filter((op) => c[op] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `state needs exactly one of ${OPERATORS.join(', ')} next to path (got ${given.length === 0 ? 'none' : given.join(', ')})`,
      });
    }
  });
export type StateCondition = z.infer<typeof stateCondition>;

function statePathSegments(path: string): string[] {
  return path.replace(/\[(\d+)\]/g, '.$1').split('.');
}

export function readPath(root: unknown, path: string): { present: boolean; value?: unknown } {
  let node: unknown = root;
  for (const key of statePathSegments(path)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return { present: false };
    node = (node as Record<string, unknown>)[key];
  }
  return { present: true, value: node };
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function conditionHolds(c: StateCondition, found: { present: boolean; value?: unknown }): boolean {
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
