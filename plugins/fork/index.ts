import { definePlugin, defineTool } from 'mcbridge';
import { SNAPSHOT_WORKFLOW_VERBS } from '../snapshot/kit.js';
import { runFork } from './run.js';
import { forkInput, forkResult } from './schema.js';
import { forkOptions } from './world-check.js';

export const forkPlugin = definePlugin({
  name: 'fork',
  version: '1.0.0',
  apiVersion: 1,
  description: 'Fork the live world: an entity snapshot plus a copy of the world folder, taken while frozen',
  requires: { caps: ['command', 'snapshot'] },
  options: forkOptions,
  verbs: SNAPSHOT_WORKFLOW_VERBS,
  tools: [
    defineTool({
      name: 'fork',
      description:
        'Fork the running world for a lab or a later restore: freezes the game if it runs (`tick freeze`), saves it ' +
        '(`save-all flush`), takes an entity snapshot (like `snapshot`) and copies the world folder into ' +
        '<snapshotDir>/world without session.lock, player data, logs and entity storage (listed under manifest.stripped), ' +
        'then unfreezes only if it was running. Slow for big worlds (reports progress in bytes). The game and this bridge ' +
        'must share the filesystem. Overwrites a snapshot of the same name. `regions: false` takes only the snapshot.',
      input: forkInput,
      output: forkResult,
      paramAliases: { dir: 'world_dir', worldDir: 'world_dir' },
      annotations: { readOnly: false, destructive: true, idempotent: false },
      only: { vantage: 'server', transport: 'legacy' },
      run: runFork,
    }),
  ],
});

export default forkPlugin;
