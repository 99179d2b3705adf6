import type { ToolAnnotations } from '../plugin-api.js';

/** What an operator lets agents see. Hidden tools vanish from every surface. */
export interface ToolPolicy {
  readOnly?: boolean;
  /** Tool names or globs (`*`, `?`); when given, only matching tools stay. */
  allow?: string[];
  /** Tool names or globs removed even when allowed. */
  deny?: string[];
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

export function matchesAny(name: string, globs: readonly string[]): boolean {
  return globs.some((g) => globToRegExp(g).test(name));
}

/** Why the policy hides a tool, or null when it does not. */
export function policyVerdict(policy: ToolPolicy, name: string, annotations: ToolAnnotations): string | null {
  if (policy.readOnly && annotations.readOnly !== true) {
    return 'read-only mode hides tools that can change the game; restart the daemon without --read-only to use it';
  }
  if (policy.allow && policy.allow.length > 0 && !matchesAny(name, policy.allow)) {
    return `not in the tool allow list (${policy.allow.join(', ')})`;
  }
  if (policy.deny && matchesAny(name, policy.deny)) {
    return `removed by the tool deny list (${policy.deny.join(', ')})`;
  }
  return null;
}
