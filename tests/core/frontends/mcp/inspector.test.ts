/**
 * A real MCP client that is not ours: the MCP Inspector's CLI mode (pinned 1.0.3, the last
 * line whose CLI runs on Node 20) against `mcbridge mcp`, over stdio and over HTTP.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach, httpFrontOf, probeStack, runNode } from '../../../support/mcp.js';
import { BIN } from '../../../support/cli-process.js';

const require = createRequire(import.meta.url);
const INSPECTOR = path.join(path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'cli', 'build', 'cli.js');
const TOKEN = 'inspector-token-0123456789abcdef';

const defer = cleanupsAfterEach();

/** `mcp-inspector --cli <target...> <args...>`: its exit code and the JSON it printed. */
async function inspector(target: string[], args: string[]): Promise<{ code: number | null; json: any; stderr: string }> {
  const run = await runNode([INSPECTOR, '--cli', ...target, ...args], { env: { MCBRIDGE_LOG_LEVEL: 'warn' } });
  let json: unknown = null;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    // not JSON: the caller looks at the code and stderr
  }
  return { code: run.code, json, stderr: run.stderr };
}

describe('the MCP Inspector CLI against mcbridge mcp', { timeout: 120_000 }, () => {
  it('stdio: tools/list is the CAPS-filtered surface; tools/call works, structured and as errors; prompts/list', async () => {
    const s = await probeStack(defer, { sim: { capabilities: ['state', 'entities', 'command', 'wait'] } });
    const target = ['node', BIN, 'mcp', '--api-port', String(s.daemon.apiAddress.port)];

    const list = await inspector(target, ['--method', 'tools/list']);
    expect(list.code, list.stderr).toBe(0);
    const names = list.json.tools.map((t: { name: string }) => t.name).sort();
    expect(names).toEqual(
      s.daemon.host
        .manifest()
        .tools.filter((t) => t.available)
        .map((t) => `mc_${t.name}`)
        .sort(),
    );
    expect(names).not.toContain('mc_mark');
    const entitiesTool = list.json.tools.find((t: { name: string }) => t.name === 'mc_entities');
    expect(entitiesTool.annotations).toMatchObject({ readOnlyHint: true });

    const entities = await inspector(target, ['--method', 'tools/call', '--tool-name', 'mc_entities', '--tool-arg', 'radius=8']);
    expect(entities.code, entities.stderr).toBe(0);
    // MCP summarises by default, as the predecessor's mc_entities did (the tool's mcpDefaults).
    expect(JSON.parse(entities.json.content[0].text)).toMatchObject({ type: 'entities_summary', radius: 8 });
    expect(entities.json.structuredContent).toEqual(JSON.parse(entities.json.content[0].text));
    expect(list.json.tools.filter((t: { outputSchema?: unknown }) => !t.outputSchema)).toEqual([]);

    const command = await inspector(target, ['--method', 'tools/call', '--tool-name', 'mc_command', '--tool-arg', 'command=time query daytime']);
    expect(JSON.parse(command.json.content[0].text)).toMatchObject({ type: 'cmd_ack' });

    const invalid = await inspector(target, ['--method', 'tools/call', '--tool-name', 'mc_entities', '--tool-arg', 'radius=far']);
    expect(invalid.json.isError).toBe(true);
    expect(JSON.parse(invalid.json.content[0].text)).toMatchObject({ code: 'invalid_params' });

    const prompts = await inspector(target, ['--method', 'prompts/list']);
    expect(prompts.json.prompts.map((p: { name: string }) => p.name)).toEqual(['mc_guide']);
    const resources = await inspector(target, ['--method', 'resources/list']);
    expect(resources.json.resources.map((r: { uri: string }) => r.uri)).toContain('mcbridge://events');
  });

  it('HTTP with a bearer token: served with the header, refused without it', async () => {
    const s = await probeStack(defer);
    const server = await httpFrontOf(defer, s, { token: TOKEN });

    const list = await inspector([server.url], ['--transport', 'http', '--header', `Authorization: Bearer ${TOKEN}`, '--method', 'tools/list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json.tools.map((t: { name: string }) => t.name)).toContain('mc_state');

    const state = await inspector([server.url], ['--transport', 'http', '--header', `Authorization: Bearer ${TOKEN}`, '--method', 'tools/call', '--tool-name', 'mc_state']);
    expect(JSON.parse(state.json.content[0].text)).toMatchObject({ type: 'state' });

    const refused = await inspector([server.url], ['--transport', 'http', '--method', 'tools/list']);
    expect(refused.code).not.toBe(0);
  });

  it('HTTP without a token: 17 Inspector CLI calls in a row (one past the cap of 16), each a session of its own that never sends DELETE, none refused under the 60 s grace', {
    timeout: 240_000,
  }, async () => {
    const s = await probeStack(defer);
    const server = await httpFrontOf(defer, s);
    for (let i = 0; i < 17; i++) {
      const list = await inspector([server.url], ['--transport', 'http', '--method', 'tools/list']);
      expect(list.code, `call ${i + 1}: ${list.stderr}`).toBe(0);
      expect(list.json.tools.map((t: { name: string }) => t.name)).toContain('mc_state');
    }
    expect(server.sessions()).toBeLessThanOrEqual(16);
  });
});
