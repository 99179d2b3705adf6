/**
 * A user's pattern over the records, bounded: in length, in shape (no nested quantifiers, the
 * classic catastrophic backtracking) and in time (the page stops at a deadline and says so).
 * Plain case-insensitive substring by default; `regex: true` opts in to a regular expression.
 */
import { McbridgeError } from 'mcbridge';
import type { LogRecord } from './ring.js';

export const MAX_PATTERN = 256;
export const GREP_BUDGET_MS = 50;

/**
 * A quantified group that itself holds a quantifier (`(a+)+`, `(\w*)*`, `(a{2,})+`), or a
 * backreference: the shapes whose matching time can grow exponentially with the line.
 */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,?\d*\})/;
const BACKREFERENCE = /\\[1-9]|\\k</;

/** The text a pattern is matched against: the message, its logger and thread, and its trace. */
function haystack(r: LogRecord): string {
  return r.trace === undefined ? r.message : `${r.message}\n${r.trace}`;
}

export function grepMatcher(pattern: string, regex: boolean): (record: LogRecord) => boolean {
  if (pattern.length > MAX_PATTERN) {
    throw new McbridgeError('invalid_params', `grep is ${pattern.length} characters; give at most ${MAX_PATTERN} (a shorter distinctive part of the line)`);
  }
  if (!regex) {
    const needle = pattern.toLowerCase();
    return (r) => haystack(r).toLowerCase().includes(needle);
  }
  if (NESTED_QUANTIFIER.test(pattern) || BACKREFERENCE.test(pattern)) {
    throw new McbridgeError(
      'invalid_params',
      `grep ${JSON.stringify(pattern)} has a nested quantifier or a backreference, which can take exponential time; write it without one (e.g. (a+)+ as a+) or search for a plain substring (regex: false)`,
    );
  }
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'i');
  } catch (err) {
    throw new McbridgeError('invalid_params', `grep is not a valid regular expression (${(err as Error).message}); fix it, or pass regex: false to search for the text as it is`);
  }
  return (r) => re.test(haystack(r));
}
