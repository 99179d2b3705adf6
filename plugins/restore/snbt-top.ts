/**
 * The top level of a compact SNBT compound, split into key and raw value text, so a comparison
 * can drop keys (`ignore_nbt_keys`) or show the `Items` that differ. Quoted strings and nested
 * brackets are skipped whole; keys may be quoted (as the mod writes them) or bare.
 */

export interface TopEntry {
  key: string;
  raw: string;
}

function skipString(text: string, at: number): number {
  const quote = text[at];
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i + 1;
  }
  return -1;
}

/** Top-level entries of `{...}`, or null when the text is not a compound this reader can split. */
export function topLevelEntries(snbt: string): TopEntry[] | null {
  const text = snbt.trim();
  if (!text.startsWith('{') || !text.endsWith('}')) return null;
  const entries: TopEntry[] = [];
  let i = 1;
  const end = text.length - 1;
  while (i < end) {
    let key: string;
    if (text[i] === '"' || text[i] === "'") {
      const close = skipString(text, i);
      if (close < 0) return null;
      try {
        key = text[i] === '"' ? (JSON.parse(text.slice(i, close)) as string) : text.slice(i + 1, close - 1);
      } catch {
        return null;
      }
      i = close;
    } else {
      const bare = /^[A-Za-z0-9._+-]+/.exec(text.slice(i));
      if (!bare) return null;
      key = bare[0];
      i += key.length;
    }
    if (text[i] !== ':') return null;
    const start = ++i;
    let depth = 0;
    while (i < end && !(depth === 0 && text[i] === ',')) {
      const c = text[i]!;
      if (c === '"' || c === "'") {
        i = skipString(text, i);
        if (i < 0) return null;
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      i++;
    }
    entries.push({ key, raw: text.slice(start, i) });
    if (text[i] === ',') i++;
  }
  return entries;
}

/** The compound without the named top-level keys (unchanged when none are named or it cannot be split). */
export function stripTopLevelKeys(snbt: string, keys: readonly string[]): string {
  if (keys.length === 0) return snbt;
  const entries = topLevelEntries(snbt);
  if (!entries) return snbt;
  const drop = new Set(keys);
  return `{${entries
    .filter((e) => !drop.has(e.key))
    .map((e) => `${JSON.stringify(e.key)}:${e.raw}`)
    .join(',')}}`;
}

/** The raw value of the top-level `Items` (a nested `components.Items` never counts), or null. */
export function itemsFragment(snbt: string): string | null {
  return topLevelEntries(snbt)?.find((e) => e.key === 'Items')?.raw ?? null;
}
