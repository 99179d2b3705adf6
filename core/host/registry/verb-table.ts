import { McbridgeError } from '../errors.js';
import { verbSpecShape } from '../define.js';
import { canonicalCap } from '../link/caps.js';
import { DEFAULT_TIMEOUT_MS, PROTOCOL_VERBS, type VerbRule, type VerbSpec } from '../link/verbs.js';
import type { Plugin } from '../plugin-api.js';

interface Declared {
  rule: VerbRule;
  /** Every loaded plugin that declares it (the same way); the verb stays while any of them is loaded. */
  plugins: string[];
}

/** The protocol's own verbs count as declared by the host; a plugin may repeat them, not change them. */
const HOST = 'mcbridge (the protocol)';

/** Two rules say the same thing; a function rule is the same only as itself. */
function sameRule(a: VerbRule, b: VerbRule): boolean {
  if (typeof a === 'function' || typeof b === 'function') return a === b;
  return describeRule(a) === describeRule(b);
}

function describeRule(rule: VerbRule): string {
  if (typeof rule === 'function') return 'a function of its argument';
  const parts = [`replies [${[...new Set(rule.replies)].sort().join(', ')}]`];
  parts.push(`timeoutMs ${rule.timeoutMs ?? DEFAULT_TIMEOUT_MS}`);
  if (rule.blocking) parts.push('blocking');
  const requires = [...new Set((rule.requires ?? []).map(canonicalCap))].sort();
  if (requires.length > 0) parts.push(`requires [${requires.join(', ')}]`);
  return parts.join(', ');
}

function owner(plugin: string): string {
  return plugin === HOST ? HOST : `plugin '${plugin}'`;
}

/**
 * The mod verbs the loaded plugins send, and how each is answered: the link's lookup. A verb
 * two plugins declare differently is refused when the second one loads, naming both.
 */
export class VerbTable {
  private readonly byVerb = new Map<string, Declared>(Object.entries(PROTOCOL_VERBS).map(([verb, rule]) => [verb, { rule, plugins: [HOST] }]));

  /** Check every verb of the plugin first, then add them all: all or none. */
  add(plugin: Plugin): void {
    const verbs = Object.entries(plugin.verbs ?? {});
    for (const [verb, rule] of verbs) {
      const known = this.byVerb.get(verb);
      if (known && !sameRule(known.rule, rule)) {
        const first = known.plugins[0]!;
        throw new McbridgeError(
          'invalid_params',
          `the mod verb '${verb}' is declared differently by ${owner(first)} (${describeRule(known.rule)}) and plugin '${plugin.name}' ` +
            `(${describeRule(rule)}): declare it the same way in both, or leave it to ${owner(first)}`,
          { verb, plugins: [first, plugin.name] },
        );
      }
    }
    for (const [verb, rule] of verbs) {
      const known = this.byVerb.get(verb);
      if (known) known.plugins.push(plugin.name);
      else this.byVerb.set(verb, { rule, plugins: [plugin.name] });
    }
  }

  remove(pluginName: string): void {
    for (const [verb, declared] of this.byVerb) {
      declared.plugins = declared.plugins.filter((p) => p !== pluginName);
      if (declared.plugins.length === 0) this.byVerb.delete(verb);
    }
  }

  /** What the loaded plugins declare for `verb` sent with `arg`; undefined when none does. */
  lookup(verb: string, arg: string): VerbSpec | undefined {
    const declared = this.byVerb.get(verb);
    if (!declared) return undefined;
    const { rule } = declared;
    return typeof rule === 'function' ? this.run(verb, arg, rule, declared.plugins[0]!) : rule;
  }

  /** A function rule runs per request; what it returns is checked like a declared spec. */
  private run(verb: string, arg: string, rule: (arg: string) => VerbSpec, plugin: string): VerbSpec {
    let problem: string;
    try {
      const parsed = verbSpecShape.safeParse(rule(arg));
      if (parsed.success) return parsed.data;
      problem = parsed.error.issues.map((i) => `${i.path.join('.') || 'the result'} ${i.message}`).join('; ');
    } catch (err) {
      problem = `it threw ${(err as Error)?.message ?? String(err)}`;
    }
    throw new McbridgeError(
      'internal',
      `${owner(plugin)} declares the mod verb '${verb}' with a function that gave no valid rule for '${verb} ${arg}': ${problem}. ` + `Fix verbs.${verb} in the plugin.`,
      { verb, plugin },
    );
  }
}
