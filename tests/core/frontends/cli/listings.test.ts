/** `mcbridge tools` and `mcbridge plugins` as people read them. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { firstSentence } from '../../../../core/frontends/cli/tools.js';
import type { Manifest } from '../../../../core/host/plugin-api.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { freePort, startStack, waitUntil, type Stack } from '../../../support/helpers.js';

const processes = new CliProcesses();
const stacks: Stack[] = [];
afterEach(async () => {
  await processes.stopAll();
  for (const s of stacks.splice(0)) await s.close();
});
afterAll(() => removeProjects());

describe('firstSentence', () => {
  it.each([
    ['Health of the bridge: link state and uptime. More detail.', 'Health of the bridge: link state and uptime.'],
    ['Put a marker, e.g. "begin", into the stream. Later.', 'Put a marker, e.g. "begin", into the stream.'],
    ['By UUID (preferred: names can change. Really.) or name. Next.', 'By UUID (preferred: names can change. Really.) or name.'],
    ['Match `a. b` exactly. Then.', 'Match `a. b` exactly.'],
    ['Version 1.2 is fine. Next.', 'Version 1.2 is fine.'],
    ['No full stop at all', 'No full stop at all'],
    ['Ends here!', 'Ends here!'],
  ])('%j', (text, sentence) => {
    expect(firstSentence(text)).toBe(sentence);
  });
});

describe('mcbridge tools', { timeout: 60_000 }, () => {
  it('prints each available tool with its whole first sentence, never cut inside one', async () => {
    const s = await startStack();
    stacks.push(s);
    const manifest = (await s.client.call('tools')) as Manifest;
    const result = await runCli(['tools', '--api-port', String(s.daemon.apiAddress.port)]);
    expect(result.code).toBe(0);
    const available = manifest.tools.filter((t) => t.available);
    expect(available.length).toBeGreaterThan(5);
    for (const tool of available) {
      const line = result.stdout.split('\n').find((l) => l.trim().startsWith(`available  ${tool.name} `));
      const shown = line!.slice(line!.indexOf(tool.name) + tool.name.length).trim();
      expect(tool.description.startsWith(shown), `${tool.name}: ${shown}`).toBe(true);
      expect(shown === tool.description.trim() || /[.!?]$/.test(shown), `${tool.name} cut mid-sentence: ${shown}`).toBe(true);
    }
  });
});

describe('mcbridge plugins', { timeout: 60_000 }, () => {
  it("names the config's composites by the config file, not by mcbridge's version", async () => {
    const p = project();
    p.write(
      'mcbridge.config.mjs',
      `export default {
      composites: [{ name: 'tick_now', description: 'The current tick.', uses: ['state'], run: async ({ state }) => (await state()).tick }],
    };\n`,
    );
    const apiPort = String(await freePort());
    const daemon = processes.start(['run', '--sim', '--api-port', apiPort], { cwd: p.dir });
    await waitUntil(() => /connected to server mod/.test(daemon.out.stderr), 30_000, 'the daemon to connect');
    const result = await runCli(['plugins', '--api-port', apiPort], { cwd: p.dir });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const heading = lines.findIndex((l) => l.startsWith('composites'));
    expect(lines[heading]).toBe(`composites  (config mcbridge.config.mjs)  ${p.dir}/mcbridge.config.mjs`);
    expect(lines[heading + 1]).toMatch(/^\s+available\s+tick_now$/);
    expect(result.stdout).toMatch(/^state \d+\.\d+\.\d+ {2}\(built-in\)$/m);
  });
});
