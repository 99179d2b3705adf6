/**
 * What may be printed of a value that came from a caller or a config: secrets by key name,
 * credentials and paths in URLs, and anything too big or too deep to be worth a log line.
 * One rule for `mcbridge config`, the activity log and every other log line that shows input.
 */
export const REDACTED = '[redacted]';

/** Keys whose values are secrets wherever they appear. */
export const SECRET_KEY = /token|secret|passw(or)?d|credential|auth|api[-_]?key|private[-_]?key|cookie|signature|webhook/i;

const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s?#]*@)?([^/\s?#]+)([^\s]*)/gi;

/** A URL keeps its scheme and host: userinfo, path and query may carry credentials. */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (_m, scheme: string, userinfo: string | undefined, host: string, rest: string) => `${scheme}${userinfo ? `${REDACTED}@` : ''}${host}${rest ? '/…' : ''}`);
}

export interface RedactOptions {
  /** Longer strings are cut (default 200). */
  maxString?: number;
  /** Deeper values become "[…]" (default 4). */
  maxDepth?: number;
  /** Longer arrays keep their first items and say how many more (default 20). */
  maxItems?: number;
  /** Strip URLs' userinfo, path and query (default true). */
  urls?: boolean;
}

/** A copy fit to log or print; never throws, whatever the input. */
export function redactValue(value: unknown, options: RedactOptions = {}, key = '', depth = 0): unknown {
  const { maxString = 200, maxDepth = 4, maxItems = 20, urls = true } = options;
  if (value === undefined) return undefined;
  if (key && SECRET_KEY.test(key) && value !== null && typeof value !== 'boolean') return REDACTED;
  if (typeof value === 'string') {
    const clean = urls ? redactUrls(value) : value;
    return clean.length > maxString ? `${clean.slice(0, maxString)}…(+${clean.length - maxString} chars)` : clean;
  }
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (typeof value === 'bigint' || typeof value === 'symbol') return String(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= maxDepth) return '[…]';
  if ('_zod' in value) return '[zod schema]';
  if (Array.isArray(value)) {
    const kept = value.slice(0, maxItems).map((v) => redactValue(v, options, '', depth + 1));
    return value.length > maxItems ? [...kept, `…(+${value.length - maxItems} more)`] : kept;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) out[k] = redactValue(v, options, k, depth + 1);
  }
  return out;
}
