import { describe, expect, it } from 'vitest';
import { block, runBlock } from '../support/doc-blocks.js';
import { useTemps } from '../support/restore.js';

/**
 * The targets blocks of the README ("Several game servers") and of docs/fork-and-restore.md ("One
 * daemon for both servers"), run by bash as written in an empty folder (tests/support/doc-blocks.ts).
 */

const tmp = useTemps('mcbridge-targets-docs-');
const run = (lines: string[]) => runBlock(lines, tmp());

describe('the targets blocks of the docs, as written', () => {
  it('README: one daemon, two servers; targets, --target, the default, a read on every target', async () => {
    const r = await run(block('README.md', '## Several game servers'));
    expect(r.code, `${r.body}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/live/);
    expect(r.stdout).toMatch(/lab/);
    const events = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('\n{"targets"') + 1 || r.stdout.lastIndexOf('{\n  "targets"'))) as {
      targets: Record<string, { events: Array<{ text: string; target: string }> }>;
    };
    expect(events.targets.live!.events.map((e) => [e.target, e.text])).toEqual([['live', 'on live']]);
    expect(events.targets.lab!.events.map((e) => [e.target, e.text])).toEqual([['lab', 'on lab']]);
  }, 120_000);

  it('docs/fork-and-restore.md: fork on live, restore dry run and apply on lab, verify ok, one daemon', async () => {
    const r = await run(block('docs/fork-and-restore.md', '## One daemon for both servers'));
    expect(r.code, `${r.body}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/"verdict": "dry-run"/);
    expect(r.stdout).toMatch(/"verdict": "ok"/);
    const verify = r.stdout.slice(r.stdout.lastIndexOf('\n{') + 1);
    expect(JSON.parse(verify)).toMatchObject({ ok: true });
  }, 180_000);
});
