import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { delay, freePort, oneCall, repoRoot, spawnChild, stopChild, type Child } from './children.js';
import { fmtNum, keepRows, median, round, table } from './stats.js';

/**
 * Part `mcp` of `npm run bench`: `mcbridge mcp` over stdio, driven by the real SDK client, in
 * front of a running `run --sim` daemon.
 *
 *  - first tools/list: from spawning `mcbridge mcp` to the first tools/list answer (initialize
 *    included), BENCH_MCP_ROUNDS cold processes (default 7), alternating with `node -e 0` for
 *    scale; medians. Target <= 300 ms.
 *  - tools/list of 500 tools: a daemon whose config adds a plugin of 500 tools; after a warm-up,
 *    BENCH_MCP_LISTS lists (default 50) on one session, alternating two ways of asking; median
 *    round trip. Target <= 20 ms. `client.request(tools/list)` is the protocol round trip (the
 *    SDK still checks the result with its zod schema); `client.listTools()` adds what the SDK
 *    client does with each list on its own side: it compiles an ajv validator for every tool's
 *    output schema, every time.
 */
export const FIRST_LIST_TARGET_MS = 300;
export const LIST_500_TARGET_MS = 20;
const MANY_TOOLS = 500;

const BIN = path.join(repoRoot, 'bin', 'mcbridge.js');

/** A config (plain ESM, so no compiler is needed) whose plugin has `count` tools with small schemas. */
function manyToolsConfig(dir: string, count: number): string {
  const file = path.join(dir, 'mcbridge.config.mjs');
  fs.writeFileSync(
    file,
    `import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
const tools = Array.from({ length: ${count} }, (_, i) => defineTool({
  name: 'bench_tool_' + i,
  description: 'Bench tool ' + i + ': echoes its arguments; exists to make the tool list long.',
  input: z.object({ radius: z.number().int().min(1).max(64).optional(), label: z.string().max(40).optional() }).strict(),
  output: z.object({ i: z.number().int(), radius: z.number().optional() }),
  annotations: { readOnly: true, idempotent: true },
  run: async ({ radius }) => ({ i, radius }),
}));
export default { plugins: [definePlugin({ name: 'bench-many-tools', version: '1.0.0', apiVersion: 1, tools })] };
`,
  );
  return file;
}

async function startDaemon(args: string[]): Promise<{ child: Child; apiPort: number }> {
  const apiPort = await freePort();
  const child = spawnChild('daemon', [BIN, 'run', '--sim', '--api-port', String(apiPort), '--log-level', 'warn', ...args]);
  child.proc.stdout!.resume();
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitedYet) throw new Error(`the daemon exited: ${child.stderr.trim()}`);
    try {
      const frame = await oneCall(apiPort, 'ping');
      if ((frame.result as { connected?: boolean } | undefined)?.connected === true) return { child, apiPort };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the daemon did not connect within 30 s: ${child.stderr.trim()}`);
    await delay(50);
  }
}

async function connectMcp(apiPort: number, cwd: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--api-port', String(apiPort)], cwd, stderr: 'ignore' });
  const client = new Client({ name: 'mcbridge-bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Spawn to first tools/list answer, one cold `mcbridge mcp` process. */
async function firstList(apiPort: number, cwd: string): Promise<{ ms: number; tools: number }> {
  const started = performance.now();
  const { client, close } = await connectMcp(apiPort, cwd);
  try {
    const { tools } = await client.listTools();
    return { ms: performance.now() - started, tools: tools.length };
  } finally {
    await close();
  }
}

export async function mcpPart(rounds: number, lists: number): Promise<Record<string, unknown>> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bench-mcp-'));
  const started: Child[] = [];
  try {
    console.log('');
    console.log(
      `mcp over stdio (SDK client): load average ${os
        .loadavg()
        .map((l) => fmtNum(l, 2))
        .join(' ')}; ${rounds} cold starts, ${lists} lists of ${MANY_TOOLS} tools; medians count`,
    );
    const plain = await startDaemon(['--no-config']);
    started.push(plain.child);
    await firstList(plain.apiPort, scratch); // warm the page cache, untimed
    const firsts: number[] = [];
    const nodes: number[] = [];
    let toolCount = 0;
    const bareNode = () => new Promise<void>((resolve, reject) => execFile(process.execPath, ['-e', '0'], (err) => (err ? reject(err) : resolve())));
    for (let i = 0; i < rounds; i++) {
      const sides = [
        async () => {
          const { ms, tools } = await firstList(plain.apiPort, scratch);
          firsts.push(ms);
          toolCount = tools;
        },
        async () => nodes.push(await timed(bareNode)),
      ];
      for (const side of i % 2 === 0 ? sides : sides.reverse()) await side();
      process.stderr.write(`  mcp round ${i + 1} first tools/list ${fmtNum(firsts.at(-1)!, 0)} ms (${toolCount} tools), node -e 0 ${fmtNum(nodes.at(-1)!, 0)} ms\n`);
    }

    const many = await startDaemon(['--config', manyToolsConfig(scratch, MANY_TOOLS)]);
    started.push(many.child);
    const { client, close } = await connectMcp(many.apiPort, scratch);
    const listMs: number[] = [];
    const sdkListMs: number[] = [];
    let manyCount = 0;
    try {
      for (let i = 0; i < 5; i++) manyCount = (await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema)).tools.length; // warm-up
      await client.listTools();
      for (let i = 0; i < lists; i++) {
        const ask = [
          async () => listMs.push(await timed(() => client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema))),
          async () => sdkListMs.push(await timed(() => client.listTools())),
        ];
        for (const one of i % 2 === 0 ? ask : ask.reverse()) await one();
      }
    } finally {
      await close();
    }
    const first = median(firsts);
    const list = median(listMs);
    const p90 = (ms: number[]) => fmtNum([...ms].sort((a, b) => a - b)[Math.floor(ms.length * 0.9)]!, 1);
    console.log(
      table(
        ['mcp', 'median ms', 'runs ms', 'target', 'verdict'],
        [
          [
            `first tools/list, cold process (${toolCount} tools)`,
            fmtNum(first, 0),
            firsts.map((m) => Math.round(m)).join(' '),
            `<= ${FIRST_LIST_TARGET_MS}`,
            first <= FIRST_LIST_TARGET_MS ? 'PASS' : 'MISS',
          ],
          ['node -e 0, same rounds (scale)', fmtNum(median(nodes), 0), nodes.map((m) => Math.round(m)).join(' '), '', ''],
          [`tools/list of ${manyCount} tools: client.request`, fmtNum(list, 1), `p90 ${p90(listMs)}`, `<= ${LIST_500_TARGET_MS}`, list <= LIST_500_TARGET_MS ? 'PASS' : 'MISS'],
          [`same, client.listTools() (+ SDK ajv compiles)`, fmtNum(median(sdkListMs), 1), `p90 ${p90(sdkListMs)}`, 'info', ''],
        ],
      ),
    );
    keepRows('node -e 0, for scale', [
      [
        `\`mcbridge mcp\` first tools/list ms (${toolCount} tools)`,
        fmtNum(first, 0),
        fmtNum(median(nodes), 0),
        fmtNum(first / median(nodes), 2),
        `<= ${FIRST_LIST_TARGET_MS} ms`,
        first <= FIRST_LIST_TARGET_MS ? 'PASS' : 'MISS',
      ],
    ]);
    keepRows('none', [[`tools/list of ${manyCount} tools ms`, fmtNum(list, 1), '-', '-', `<= ${LIST_500_TARGET_MS} ms`, list <= LIST_500_TARGET_MS ? 'PASS' : 'MISS']]);
    return {
      firstListMs: firsts.map((m) => round(m, 1)),
      firstListTools: toolCount,
      nodeMs: nodes.map((m) => round(m, 1)),
      list500Ms: listMs.map((m) => round(m, 2)),
      list500SdkListToolsMs: sdkListMs.map((m) => round(m, 1)),
      list500Tools: manyCount,
      pass: { firstList: first <= FIRST_LIST_TARGET_MS, list500: list <= LIST_500_TARGET_MS },
      loadAvg: round(os.loadavg()[0]!, 2),
    };
  } finally {
    for (const child of started) await stopChild(child);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
