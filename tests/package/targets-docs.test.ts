import { describe, expect, it } from 'vitest';
import { block, OUTSIDE_THE_CLONE, runBlock } from '../support/doc-blocks.js';
import { useTemps } from '../support/restore.js';

/**
 * The targets blocks of the README ("Several game servers") and of docs/fork-and-restore.md ("One
 * daemon for both servers"), run by bash as written where the text says: in an empty folder outside
 * the clone, with the installed `mcbridge` (tests/support/doc-blocks.ts).
 */

const tmp = useTemps('mcbridge-targets-docs-');
const run = (lines: string[]) => runBlock(lines, tmp());

describe('the targets blocks of the docs, as written', () => {
  it('README: one daemon, two servers; targets, --target, the default, a read on every target', async () => {
    const lines = block('README.md', '## Several game servers');
    expect(lines.intro).toMatch(OUTSIDE_THE_CLONE);
    const r = await run(lines);
    expect(r.code, `${r.body}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/live/);
    expect(r.stdout).toMatch(/lab/);
    expect(r.stderr).not.toContain('two config files');
    const events = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('\n{"targets"') + 1 || r.stdout.lastIndexOf('{\n  "targets"'))) as {
      targets: Record<string, { events: Array<{ text: string; target: string }> }>;
    };
    expect(events.targets.live!.events.map((e) => [e.target, e.text])).toEqual([['live', 'on live']]);
    expect(events.targets.lab!.events.map((e) => [e.target, e.text])).toEqual([['lab', 'on lab']]);
  }, 120_000);

  it('README: lab servers; two launched sims, fork live, reset lab from it, its log, reset from the template', async () => {
    const lines = block('README.md', '## Lab servers');
    expect(lines.intro).toMatch(OUTSIDE_THE_CLONE);
    const r = await run(lines);
    expect(r.code, `${r.body}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/"forkDir": ".*before[/\\]world"/);
    expect(r.stdout).toMatch(/lab: running \(pid \d+[^)]*\)\n {2}world from the fork before: \d+ files, \d+ bytes/);
    expect(r.stdout).toMatch(/"type": "mark_ack"/);
    // The lab's two starts so far: with the daemon, and after the reset.
    expect(r.stdout.match(/^\d\d:\d\d:\d\d INFO \[Server thread\]: Done \(/gm)).toHaveLength(2);
    expect(r.stdout).toMatch(/world from the template .*templates[/\\]clean: 1 files, 6 bytes/);
  }, 180_000);

  it('docs/fork-and-restore.md: fork on live, restore dry run and apply on lab, verify ok, one daemon', async () => {
    const lines = block('docs/fork-and-restore.md', '## One daemon for both servers');
    expect(lines.intro).toMatch(OUTSIDE_THE_CLONE);
    const r = await run(lines);
    expect(r.code, `${r.body}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/"verdict": "dry-run"/);
    expect(r.stdout).toMatch(/"verdict": "ok"/);
    const verify = r.stdout.slice(r.stdout.lastIndexOf('\n{') + 1);
    expect(JSON.parse(verify)).toMatchObject({ ok: true });
  }, 180_000);
});
