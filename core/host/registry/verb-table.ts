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

/** A rule as it reads for the empty argument (a function rule run once), or null when it cannot say. */
function probe(rule: VerbRule): VerbSpec | null {
  if (typeof rule !== 'function') return rule;
  try {
    const spec = rule('');
    return spec && typeof spec === 'object' && Array.isArray(spec.replies) ? spec : null;
  } catch {
    return null;
  }
}

const hasTransportForm = (spec: VerbSpec) => spec.control !== undefined || spec.write !== undefined || spec.legacy !== undefined;

/**
 * Two rules say the same thing, or one says more: a plugin written before the control protocol
 * declares `CMD: { replies: ['cmd_ack'], requires: ['command'] }`, which agrees with the built-in
 * rule that also says how CMD goes over control. Two different functions cannot be compared.
 */
function sameRule(a: VerbRule, b: VerbRule): boolean {
  if (a === b) return true;
  if (typeof a === 'function' && typeof b === 'function') return false;
  const pa = probe(a);
  const pb = probe(b);
  if (!pa || !pb || legacyKey(pa) !== legacyKey(pb)) return false;
  if (!hasTransportForm(pa) || !hasTransportForm(pb)) return true;
  return typeof a !== 'function' && typeof b !== 'function' && describeRule(a) === describeRule(b);
}

/** Of two agreeing rules, the one that also says how the verb goes over control protocol 1. */
function richer(a: VerbRule, b: VerbRule): VerbRule {
  const pb = probe(b);
  return pb && hasTransportForm(pb) && !hasTransportForm(probe(a) ?? pb) ? b : a;
}

function legacyKey(rule: VerbSpec): string {
  const parts = [`replies [${[...new Set(rule.replies)].sort().join(', ')}]`];
  parts.push(`timeoutMs ${rule.timeoutMs ?? DEFAULT_TIMEOUT_MS}`);
  if (rule.blocking) parts.push('blocking');
  const requires = [...new Set((rule.requires ?? []).map(canonicalCap))].sort();
  if (requires.length > 0) parts.push(`requires [${requires.join(', ')}]`);
  return parts.join(', ');
}

function describeRule(rule: VerbRule): string {
  if (typeof rule === 'function') return 'a function of its argument';
  const parts = [legacyKey(rule)];
  if (rule.write) parts.push('write');
  if (rule.control) parts.push(`control ${rule.control.op} ${JSON.stringify(rule.control.params ?? {})}`);
  if (rule.legacy === false) parts.push('control only');
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
      if (known) {
        known.plugins.push(plugin.name);
        known.rule = richer(known.rule, rule);
      } else this.byVerb.set(verb, { rule, plugins: [plugin.name] });
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
