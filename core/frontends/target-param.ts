/**
 * The target a front-end adds to a call: the one its user chose (the CLI's --target or
 * MCBRIDGE_TARGET, `mcbridge mcp --target`), only where the call names none itself: a `target`
 * in the params is the more specific choice (and, on a daemon of one target, may be a tool's
 * own label: restore's, order's).
 */
export function withTarget(params: Record<string, unknown>, target: string | undefined): Record<string, unknown> {
  return target === undefined || 'target' in params ? params : { ...params, target };
}
