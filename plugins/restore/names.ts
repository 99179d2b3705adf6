/** Snapshot names restore, verify and order take on the destination. */

/** `restore-<stage>[-<target>]` as one safe token: others become `-`, runs collapse, edges trimmed, at most 64. */
export function stageName(stage: string, target?: string | null): string {
  const raw = target ? `${stage}-${target}` : stage;
  const safe = raw
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
  return safe.slice(0, 64).replace(/-+$/, '') || stage;
}

export const restoreSnapshotName = (stage: 'pre' | 'pre-cleared' | 'check', target?: string | null) => stageName(`restore-${stage}`, target);

/** `order-<target>`, or `order-check` without a target. */
export const orderSnapshotName = (target?: string | null) => (target ? stageName('order', target) : 'order-check');
