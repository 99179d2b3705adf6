/**
 * The NBT paths `data get entity <target> <path>` needs: `Motion`, `Pos[1]`, `Item.id`,
 * `Passengers[0].UUID`, `Tags[]`, `"odd key"`. Compound filters are not supported.
 */
import type { Tag } from './snbt.js';

type Step = { key: string } | { index: number } | { all: true };

/** Returns the steps, or the cursor of the first character that is not a valid path element. */
export function parseNbtPath(path: string): Step[] | number {
  const steps: Step[] = [];
  let at = 0;
  while (at < path.length) {
    if (path[at] === '[') {
      const end = path.indexOf(']', at);
      if (end === -1) return at;
      const inner = path.slice(at + 1, end);
      if (inner === '') steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else return at;
      at = end + 1;
    } else if (path[at] === '"') {
      const end = path.indexOf('"', at + 1);
      if (end === -1) return at;
      steps.push({ key: path.slice(at + 1, end) });
      at = end + 1;
    } else {
      const match = /^[^.[\]"{}\s]+/.exec(path.slice(at));
      if (!match) return at;
      steps.push({ key: match[0] });
      at += match[0].length;
    }
    if (path[at] === '.') at++;
  }
  return steps;
}

export function evaluateNbtPath(root: Tag, steps: Step[]): Tag[] {
  let current: Tag[] = [root];
  for (const step of steps) {
    const next: Tag[] = [];
    for (const tag of current) {
      if ('key' in step) {
        if (tag.kind === 'compound' && tag.entries.has(step.key)) next.push(tag.entries.get(step.key)!);
      } else if (tag.kind === 'list') {
        if ('all' in step) next.push(...tag.items);
        else {
          const i = step.index < 0 ? tag.items.length + step.index : step.index;
          if (tag.items[i]) next.push(tag.items[i]);
        }
      }
    }
    current = next;
  }
  return current;
}
