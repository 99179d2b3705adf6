import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { CliProcesses, runCli } from '../support/cli-process.js';
import { startDaemonProcess } from '../faults/support.js';

/**
 * examples/targets: one daemon process, two embedded sims (`live`, `lab`), and the `fork_to_lab`
 * composite doing the fork → restore → verify workflow across them in one call.
 */
const processes = new CliProcesses();
afterEach(() => processes.stopAll());
const CONFIG = path.join(import.meta.dirname, '..', '..', 'examples', 'targets', 'mcbridge.config.ts');

describe('examples/targets: fork on live, restore and verify on lab, from one daemon', () => {
  it('fork_to_lab runs every step on its own target and ends verified; the lab got the entities, live is unchanged', async () => {
    const daemon = await startDaemonProcess(processes, [], undefined, CONFIG);
    const client = await ApiClient.connect({ port: daemon.port });
    try {
      const before = (await client.call('entities', { target: 'live' })) as { entities: unknown[] };
      const labBefore = (await client.call('entities', { target: 'lab' })) as { entities: unknown[] };
      const result = (await client.call('fork_to_lab', { name: 'before' })) as Record<string, any>;
      expect(result.dryRun).toMatchObject({ verdict: 'dry-run', count: result.fork.entities });
      expect(result.apply).toMatchObject({ verdict: 'ok', issued: result.fork.entities });
      expect(result.verify).toEqual({ verdict: 'ok' });
      expect(result.fork.snapshotDir).toContain(path.join('mc-agent-server', 'snapshots', 'before'));
      const after = (await client.call('entities', { target: 'live' })) as { entities: unknown[] };
      const labAfter = (await client.call('entities', { target: 'lab' })) as { entities: unknown[] };
      expect(after.entities).toHaveLength(before.entities.length);
      // The lab's copies of the recorded entities were replaced by the recording's, in its order.
      expect(labAfter.entities.length).toBeGreaterThanOrEqual(result.fork.entities);
      expect(labBefore.entities.length).toBeGreaterThan(0);
    } finally {
      client.close();
    }

    // The same daemon through the CLI: the default target is lab; --target picks live.
    const targets = await runCli(['call', 'targets', '{}', '--api-port', String(daemon.port)]);
    expect(targets.code, targets.stderr).toBe(0);
    expect(JSON.parse(targets.stdout)).toMatchObject({ default: 'lab', count: 2 });
  }, 120_000);
});
