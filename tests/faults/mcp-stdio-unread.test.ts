/**
 * A real `mcbridge mcp` process whose stdout nobody reads while its client keeps asking: the
 * process stops reading requests near its output bound instead of buffering every answer (it
 * grew by 1,070 MiB before), says so on stderr, and answers everything once the client reads.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/cli-process.js';
import { startStack, waitUntil } from '../support/helpers.js';
import { cleanupsAfterEach } from '../support/mcp.js';

const defer = cleanupsAfterEach();
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('MCP stdio with a client that does not read', { timeout: 120_000 }, () => {
  it('holds its output near the bound, not every answer, and answers all once read', async () => {
    const stack = await startStack();
    defer(() => stack.close());
    const child = spawn(process.execPath, [BIN, 'mcp', '--api-port', String(stack.daemon.apiAddress.port)], { stdio: ['pipe', 'pipe', 'pipe'] });
    defer(() => child.exitCode === null && child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
    send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unread', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await waitUntil(() => /mcbridge MCP server on stdio/.test(stderr), 15_000, 'the front-end to start');
    const rssBefore = rssOf(child.pid!);

    // Each tools/list answer is tens of KB: 4,000 of them are a few hundred MB if all were kept.
    const total = 4_000;
    for (let i = 0; i < total; i++) send({ jsonrpc: '2.0', id: i, method: 'tools/list' });
    await waitUntil(() => /not reading its answers/.test(stderr), 30_000, 'the front-end to say it stopped reading');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const grownMiB = (rssOf(child.pid!) - rssBefore) / 1024 / 1024;
    expect(grownMiB).toBeLessThan(80);

    let answered = 0;
    let bytes = 0;
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      bytes += d.length;
      const lines = (partial + d).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (typeof (JSON.parse(line) as { id?: unknown }).id === 'number') answered += 1;
    });
    await waitUntil(() => answered === total, 90_000, 'every answer once the client reads');
    expect(child.exitCode).toBeNull();
    console.error(`mcp stdio unread: grew ${grownMiB.toFixed(1)} MiB while ${(bytes / 1024 / 1024).toFixed(0)} MiB of answers were owed`);
  });
});
