/**
 * A plugin package installed in a server directory where mcbridge itself is not (mcbridge runs from
 * a global install or a clone): its own `import 'mcbridge'` and `import 'zod'` fall back to the
 * running mcbridge's copies, so it loads and serves.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { startDaemonProcess } from '../../../faults/support.js';

const processes = new CliProcesses();
afterEach(() => processes.stopAll());
afterAll(removeProjects);

const PLUGIN = `import { z } from 'zod';
import { definePlugin, defineTool, HOST_API_VERSION } from 'mcbridge';
export default definePlugin({
  name: 'mcbridge-plugin-lonely',
  version: '1.0.0',
  apiVersion: HOST_API_VERSION,
  tools: [defineTool({ name: 'lonely_echo', description: 'Echoes a word.', input: z.object({ word: z.string() }).strict(), run: async ({ word }) => word })],
});
`;

describe('an npm plugin in a directory without mcbridge', () => {
  it('loads with the running mcbridge and zod, and its tool answers', async () => {
    const p = project({ install: false });
    p.fakePackage('mcbridge-plugin-lonely', PLUGIN, { type: 'module', exports: { '.': './index.js' }, peerDependencies: { mcbridge: '*', zod: '^4' } });
    p.write('mcbridge.config.ts', "export default { plugins: ['lonely'] };\n");

    const shown = await runCli(['config'], { cwd: p.dir });
    expect(shown.stderr).toBe('');
    expect(JSON.parse(shown.stdout)).toMatchObject({ plugins: [{ name: 'mcbridge-plugin-lonely', source: 'npm', tools: ['lonely_echo'] }] });

    const inServerDir = new CliProcesses({ cwd: p.dir });
    const daemon = await startDaemonProcess(inServerDir, ['--sim', '--config', 'mcbridge.config.ts']);
    try {
      const call = await runCli(['call', 'lonely_echo', '{"word": "hi"}', '--api-port', String(daemon.port)]);
      expect(call.code).toBe(0);
      expect(JSON.parse(call.stdout)).toBe('hi');
    } finally {
      await inServerDir.stopAll();
    }
  }, 60_000);
});
