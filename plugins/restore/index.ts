import { definePlugin, defineTool } from 'mcbridge';
import { SNAPSHOT_WORKFLOW_VERBS } from '../snapshot/kit.js';
import { orderInput, restoreInput, verifyInput } from './input.js';
import { orderResult, restoreResult, verifyResult } from './output.js';
import { runRestore } from './restore.js';
import { runOrder } from './order.js';
import { runVerify } from './verify.js';

const aliases = { dir: 'directory' };

export const restorePlugin = definePlugin({
  name: 'restore',
  version: '1.0.0',
  apiVersion: 1,
  description: 'Restore a fork into a game in its recorded tick order, guarded and verified; verify and order checks',
  requires: { caps: ['snapshot'] },
  verbs: SNAPSHOT_WORKFLOW_VERBS,
  tools: [
    defineTool({
      name: 'restore',
      description:
        "Summon a fork's entities into the game this bridge is connected to, one by one in the recorded tick order, which a save " +
        'file cannot hold. Dry run by default: it checks the recording and the destination and lists the summons. To apply ' +
        '(dry_run: false) prove the destination: expect_world_dir (strongest), expect_instance or expect_level; `target` is only a ' +
        'label. It freezes the game if it runs, refuses duplicates (replace_existing kills exactly the colliding ones), verifies ' +
        'with a fresh snapshot and puts the tick state back. verdict: ok, failed, unverified or dry-run. Reports progress per summon.',
      input: restoreInput,
      output: restoreResult,
      requires: ['command', 'state', 'snapshot'],
      paramAliases: aliases,
      annotations: { readOnly: false, destructive: true, idempotent: false },
      only: { vantage: 'server', transport: 'legacy' },
      run: runRestore,
    }),
    defineTool({
      name: 'verify',
      description:
        'Compare the game now with a recording (a fork or snapshot folder): tick order, orderHash, counts by type, and per entity ' +
        'its type, position, velocity and full NBT. Takes one snapshot; changes nothing else. After a server restart the tick ' +
        'order is rebuilt: use strict: false and check missing 0, unexpected 0 and counts.match. The snapshot is a folder the ' +
        'game writes (restore-check[-<target>], replacing the last one), so a --read-only daemon does not offer verify.',
      input: verifyInput,
      output: verifyResult,
      paramAliases: aliases,
      // Not read-only: SNAPSHOT writes a folder on the game host, and a read-only daemon writes nothing (issue 24, N11).
      annotations: { readOnly: false, destructive: false, idempotent: true },
      only: { vantage: 'server', transport: 'legacy' },
      run: runVerify,
    }),
    defineTool({
      name: 'order',
      description:
        "Whether the game's entity tick order still matches a recording: compares orderHash only (cheap; an inventory change " +
        'still matches, use verify for the full state). Takes one snapshot named order[-<target>], a folder the game writes ' +
        '(replacing the last one), so a --read-only daemon does not offer order.',
      input: orderInput,
      output: orderResult,
      paramAliases: aliases,
      annotations: { readOnly: false, destructive: false, idempotent: true },
      only: { vantage: 'server', transport: 'legacy' },
      run: runOrder,
    }),
  ],
});

export default restorePlugin;
