import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { block, OUTSIDE_THE_CLONE, runBlock } from '../support/doc-blocks.js';
import { useTemps } from '../support/restore.js';

/**
 * The README's "Remote servers" block, run by bash as written where the text says (an empty folder
 * outside the clone, the installed `mcbridge`) against a simulated server serving the control
 * protocol (tests/support/doc-blocks.ts; its fixed control port becomes a free one).
 */
const tmp = useTemps('mcbridge-control-docs-');

describe('the README "Remote servers" block, as written', () => {
  it('mints (the sim prints a token), pins the fingerprint, configures the target, checks status, writes and asks the ledger', async () => {
    const lines = block('README.md', '## Remote servers');
    expect(lines.intro).toMatch(OUTSIDE_THE_CLONE);
    const dir = tmp();
    const r = await runBlock(lines, dir, [25575]);
    expect(r.code, `${r.body}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/ok\s+control\s+control protocol to 127\.0\.0\.1:\d+, pin, credential from file .*far\.token, permissions read\+write/);
    expect(r.stdout).toMatch(/"type": "cmd_ack"/);
    expect(r.stdout).toMatch(/t-1: completed: it ran/);
    // The token went to far.txt and far.token, never to the daemon's output.
    expect(r.stdout + r.stderr).not.toMatch(/mca1\.tk_[0-9a-f]+\.[A-Za-z0-9_-]{8,}/);
    // Both files that hold it are the user's alone, so the daemon has nothing to warn of.
    for (const file of ['far.txt', 'far.token']) expect((fs.statSync(path.join(dir, file)).mode & 0o777).toString(8), file).toBe('600');
    expect(r.stderr).not.toMatch(/readable by/);
  }, 120_000);
});
