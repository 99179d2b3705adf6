import { describe, expect, it } from 'vitest';
import { block, runBlock } from '../support/doc-blocks.js';
import { useTemps } from '../support/restore.js';

/**
 * The README's "Remote servers" block, run by bash as written in an empty folder against a
 * simulated server serving the control protocol (tests/support/doc-blocks.ts; its fixed control
 * port becomes a free one).
 */
const tmp = useTemps('mcbridge-control-docs-');

describe('the README "Remote servers" block, as written', () => {
  it('mints (the sim prints a token), pins the fingerprint, configures the target, checks status, writes and asks the ledger', async () => {
    const r = await runBlock(block('README.md', '## Remote servers'), tmp(), [25575]);
    expect(r.code, `${r.body}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/ok\s+control\s+control protocol to 127\.0\.0\.1:\d+, pin, credential from file .*far\.token, permissions read\+write/);
    expect(r.stdout).toMatch(/"type": "cmd_ack"/);
    expect(r.stdout).toMatch(/t-1: completed: it ran/);
    // The token went to far.txt and far.token, never to the daemon's output.
    expect(r.stdout + r.stderr).not.toMatch(/mca1\.tk_[0-9a-f]+\.[A-Za-z0-9_-]{8,}/);
  }, 120_000);
});
