/**
 * The activity log sees every call from every front-end (the CLI, MCP, a plain API client) with
 * who asked, and no secret reaches it or the process log.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../core/api/activity-log.js';
import { runCli } from '../support/cli-process.js';
import { startStack, type Stack } from '../support/helpers.js';
import { cleanupsAfterEach, connectInMemory, frontendFor } from '../support/mcp.js';

const TOKEN = 'activity-test-token-0123456789';
const SECRET = 'hunter2-but-longer-and-secret';
const defer = cleanupsAfterEach();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('activity log', { timeout: 60_000 }, () => {
  it('records calls from the CLI, MCP and a plain client, and holds no secret', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-activity-'));
    dirs.push(dir);
    const file = path.join(dir, 'activity.jsonl');
    const logged: string[] = [];
    const log = pino(
      { level: 'debug' },
      new Writable({
        write(chunk, _e, done) {
          logged.push(String(chunk));
          done();
        },
      }),
    );
    const stack: Stack = await startStack({ daemon: { log, api: { token: TOKEN, activityLog: { file } } } });
    defer(() => stack.close());
    const port = String(stack.daemon.apiAddress.port);

    // A plain client (the predecessor's way), with a secret in the arguments.
    await stack.client.call('mark', { text: `deploy with password ${SECRET} at https://bot:${SECRET}@example.org/x?k=${SECRET}` });
    // The CLI.
    const cli = await runCli(['call', 'state', '--api-port', port, '--api-token', TOKEN]);
    expect(cli.code).toBe(0);
    // MCP, including a refused call.
    const f = frontendFor(stack.daemon.apiAddress.port, { api: { port: stack.daemon.apiAddress.port, token: TOKEN } });
    defer(() => f.close());
    const c = await connectInMemory(f);
    defer(() => c.close());
    await c.client.callTool({ name: 'mc_entities', arguments: { radius: 4 } });
    await c.client.callTool({ name: 'mc_command', arguments: { command: '' } });

    const records = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ActivityRecord);
    const calls = records.filter((r) => r.event === 'call');
    expect(calls.map((r) => [r.tool, r.caller.frontend, r.outcome])).toEqual([
      ['mark', 'api', 'ok'],
      ['state', 'cli', 'ok'],
      ['entities', 'mcp', 'ok'],
      ['command', 'mcp', 'invalid_params'],
    ]);
    expect(calls[2].caller.session).toEqual(expect.any(String));
    expect(records.filter((r) => r.event === 'start').map((r) => r.tool)).toEqual(['mark', 'command']);
    for (const r of calls) expect(r.ms).toBeGreaterThanOrEqual(0);

    const everything = fs.readFileSync(file, 'utf8') + logged.join('');
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(`${SECRET}@`);
    expect(everything).not.toContain(`k=${SECRET}`);
  });
});
