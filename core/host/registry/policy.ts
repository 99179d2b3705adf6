/**
 * Tool policy: what an operator lets agents see. An entry of `allow`/`deny` is a tool name or
 * glob, or a selector by effect, so "no console commands" cannot be bypassed by another tool that
 * sends them (command_output, a composite, a third-party plugin):
 *
 *   effect:mutating      every tool not annotated read-only
 *   effect:destructive   every tool annotated destructive
 *   effect:open-world    every tool that reaches outside the game
 *   cap:<token>          every tool that needs that mod capability (cap:command = console commands);
 *                        the link also refuses any mod verb that needs it
 *   plugin:<name>        every tool of that plugin
 */
import { canonicalCap } from '../link/caps.js';
import type { ToolAnnotations } from '../plugin-api.js';

export interface ToolPolicy {
  readOnly?: boolean;
  /** Tool names, globs (`*`, `?`) or selectors; when given, only matching tools stay. */
  allow?: string[];
  /** Tool names, globs or selectors removed even when allowed. */
  deny?: string[];
}

/** What the policy looks at in a tool. */
export interface PolicySubject {
  name: string;
  plugin: string;
  annotations: ToolAnnotations;
  requires: readonly string[];
}

const EFFECTS: Record<string, (t: PolicySubject) => boolean> = {
  mutating: (t) => t.annotations.readOnly !== true,
  destructive: (t) => t.annotations.destructive === true,
  'open-world': (t) => t.annotations.openWorld === true,
};

type Selector =
  | { kind: 'glob'; pattern: RegExp; exact: boolean }
  | { kind: 'effect'; test: (t: PolicySubject) => boolean }
  | { kind: 'cap'; cap: string }
  | { kind: 'plugin'; plugin: string }
  | { kind: 'invalid'; problem: string };

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

const parsed = new Map<string, Selector>();

function selectorOf(entry: string): Selector {
  let selector = parsed.get(entry);
  if (selector) return selector;
  const colon = entry.indexOf(':');
  const kind = colon === -1 ? '' : entry.slice(0, colon);
  const value = entry.slice(colon + 1).trim();
  if (kind === 'effect') {
    selector = Object.hasOwn(EFFECTS, value)
      ? { kind: 'effect', test: EFFECTS[value] }
      : {
          kind: 'invalid',
          problem: `unknown effect '${value}'; use one of ${Object.keys(EFFECTS)
            .map((e) => `effect:${e}`)
            .join(', ')}`,
        };
  } else if (kind === 'cap') {
    selector = value ? { kind: 'cap', cap: canonicalCap(value) } : { kind: 'invalid', problem: 'cap: needs a capability token, e.g. cap:command' };
  } else if (kind === 'plugin') {
    selector = value ? { kind: 'plugin', plugin: value } : { kind: 'invalid', problem: 'plugin: needs a plugin name, e.g. plugin:mcbridge-plugin-sky' };
  } else if (colon !== -1) {
    selector = { kind: 'invalid', problem: `unknown selector '${kind}:'; use a tool name or glob, effect:<effect>, cap:<token> or plugin:<name>` };
  } else {
    selector = { kind: 'glob', pattern: globToRegExp(entry), exact: !/[*?]/.test(entry) };
  }
  parsed.set(entry, selector);
  return selector;
}

function matches(entry: string, tool: PolicySubject): boolean {
  const s = selectorOf(entry);
  switch (s.kind) {
    case 'glob':
      return s.pattern.test(tool.name);
    case 'effect':
      return s.test(tool);
    case 'cap':
      return tool.requires.some((r) => canonicalCap(r) === s.cap);
    case 'plugin':
      return tool.plugin === s.plugin;
    default:
      return false;
  }
}

/** Why the policy hides a tool, or null when it does not. */
export function policyVerdict(policy: ToolPolicy, tool: PolicySubject): string | null {
  if (policy.readOnly && tool.annotations.readOnly !== true) {
    return 'read-only mode hides tools that can change the game; restart the daemon without --read-only to use it';
  }
  if (policy.allow && policy.allow.length > 0 && !policy.allow.some((e) => matches(e, tool))) {
    return `not in the tool allow list (${policy.allow.join(', ')})`;
  }
  const denied = policy.deny?.find((e) => matches(e, tool));
  if (denied !== undefined) return `removed by the tool deny list (${denied})`;
  return null;
}

/** Capabilities the deny list names with `cap:`: no mod verb that needs one may be sent. */
export function deniedCaps(policy: ToolPolicy): Set<string> {
  const out = new Set<string>();
  for (const entry of policy.deny ?? []) {
    const s = selectorOf(entry);
    if (s.kind === 'cap') out.add(s.cap);
  }
  return out;
}

export interface PolicyProblem {
  /** `deny[2]`, `allow[0]`. */
  path: string;
  entry: string;
  message: string;
  /** A typo that must not be ignored (an exact name or selector that matches nothing); false: a glob that matches nothing yet. */
  fatal: boolean;
}

/** Edits (insert, delete, replace) between two short strings. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

function suggestion(entry: string, names: readonly string[]): string {
  const lower = entry.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(lower.length / 3));
  for (const name of names) {
    const d = distance(lower, name.toLowerCase());
    if (d <= bestDistance && (best === undefined || d < bestDistance)) [best, bestDistance] = [name, d];
  }
  return best ? `; did you mean '${best}'?` : '';
}

/**
 * A deny by name that leaves other mutating tools able to do the same thing (deny 'command'
 * while command_output still sends console commands): say which, and the selector that closes it.
 */
function bypasses(policy: ToolPolicy, denied: readonly PolicySubject[], tools: readonly PolicySubject[]): string | null {
  for (const tool of denied) {
    if (tool.annotations.readOnly === true) continue;
    for (const cap of tool.requires.map(canonicalCap)) {
      const others = tools.filter((t) => t !== tool && t.annotations.readOnly !== true && t.requires.some((r) => canonicalCap(r) === cap) && policyVerdict(policy, t) === null);
      if (others.length > 0) {
        return `denies '${tool.name}', but ${others.map((t) => `'${t.name}'`).join(', ')} can still do what needs the '${cap}' capability; ` + `deny 'cap:${cap}' to remove every tool that needs it`;
      }
    }
  }
  return null;
}

/** Every capability token the tools need, canonical. */
function capsOf(tools: readonly PolicySubject[]): string[] {
  return [...new Set(tools.flatMap((t) => t.requires.map(canonicalCap)))];
}

/**
 * Entries that match no tool: an exact name or a selector is a mistake (a deny that silently
 * protects nothing); a glob may be waiting for a plugin and is only worth a warning.
 */
export function policyProblems(policy: ToolPolicy, tools: readonly PolicySubject[]): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const names = tools.map((t) => t.name);
  for (const list of ['allow', 'deny'] as const) {
    (policy[list] ?? []).forEach((entry, i) => {
      const path = `${list}[${i}]`;
      const s = selectorOf(entry);
      if (s.kind === 'invalid') {
        problems.push({ path, entry, message: s.problem, fatal: true });
        return;
      }
      const matched = tools.filter((t) => matches(entry, t));
      if (matched.length > 0) {
        if (list === 'deny') {
          const leak = bypasses(policy, matched, tools);
          if (leak) problems.push({ path, entry, message: leak, fatal: false });
        }
        return;
      }
      // A capability close to one the tools need is a typo, as a misspelt tool name is: it would deny nothing.
      const close =
        s.kind === 'cap'
          ? suggestion(
              entry,
              capsOf(tools).map((cap) => `cap:${cap}`),
            )
          : '';
      if (s.kind === 'glob' && !s.exact) {
        problems.push({ path, entry, message: `'${entry}' matches no tool yet`, fatal: false });
      } else if (s.kind === 'glob') {
        problems.push({ path, entry, message: `'${entry}' is not the name of any tool${suggestion(entry, names)} (\`mcbridge tools\` lists them)`, fatal: true });
      } else if (close) {
        problems.push({ path, entry, message: `'${entry}' is not a capability any tool needs${close} (\`mcbridge tools --json\` shows each tool's requires)`, fatal: true });
      } else {
        // An unknown plugin is a typo; an effect or capability no tool has yet denies nothing now.
        problems.push({ path, entry, message: `'${entry}' matches no tool of the loaded plugins`, fatal: s.kind === 'plugin' });
      }
    });
  }
  return problems;
}
