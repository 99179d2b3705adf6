import { describe, expect, it } from 'vitest';
import { useStacks } from '../support/plugins.js';
import { forkIntoLab, useTemps, worldDirOf } from '../support/restore.js';

const stacks = useStacks();
const tmp = useTemps();

describe('fork live -> restore into a lab -> verify', () => {
  it('restores the live world into the lab in tick order and verifies ok', async () => {
    const { live, lab, fork } = await forkIntoLab(stacks.start, tmp);
    const dry = await lab.call('restore', { dir: fork.snapshotDir, target: 'lab' });
    expect(dry.verdict).toBe('dry-run');
    const progress: string[] = [];
    const applied = await lab.call(
      'restore',
      { directory: fork.snapshotDir, dry_run: false, target: 'lab', expect_world_dir: worldDirOf(lab) },
      { onProgress: (f: { message?: string }) => progress.push(f.message ?? '') },
    );
    expect(applied.verdict).toBe('ok');
    const verified = await lab.call('verify', { directory: fork.snapshotDir });
    expect(verified.ok).toBe(true);
    void live;
  });
});
