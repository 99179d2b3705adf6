import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN } from './calls.js';
import { freePort, guard, spawnChild, stopChild, withTimeout, type Child } from './children.js';
import { fmtNum, median, printTable, round } from './stats.js';
import { RpcClient } from './subscriber.js';

/**
 * Part `launch` of `npm run bench` (docs/servers.md): what the server plugin adds to starting a
 * server. The mcbridge side is a daemon (a child) whose target has `launch: { sim: true }` and
 * `autoStart: false`; a round is one `server_start`, timed from the call to its answer (the sim
 * spawned, its port file written, the link connected and the mod's hello read), then a
 * `server_stop` outside the clock. The baseline spawns the very same argv in the same folder by
 * hand and waits for its port file (polled every 2 ms), then stops it. Rounds alternate; medians.
 */

const TARGET = 1.1;

interface Answer {
  ok?: boolean;
  result?: { command?: string[]; cwd?: string; state?: string };
  error?: unknown;
}

async function call(client: RpcClient, id: number, method: string): Promise<{ answer: Answer; ms: number }> {
  const t0 = performance.now();
  const { reply } = await withTimeout(client.roundTrip(JSON.stringify({ id, method, params: {} })), 60_000, `the answer to ${method}`);
  const answer = JSON.parse(reply) as Answer;
  if (answer.ok !== true) throw new Error(`${method} failed: ${reply.slice(0, 400)}`);
  return { answer, ms: performance.now() - t0 };
}

/** Spawn argv, wait for the port file to appear, stop it; the ms to the port file. */
async function byHand(argv: string[], cwd: string): Promise<number> {
  const portFile = path.join(cwd, 'mc-agent-server', 'port.txt');
  fs.rmSync(portFile, { force: true });
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['pipe', 'ignore', 'ignore'] });
  const exited = new Promise((r) => child.once('exit', r));
  while (!fs.existsSync(portFile)) {
    if (child.exitCode !== null) throw new Error(`the hand-spawned server exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  const ms = performance.now() - t0;
  child.stdin!.end('stop\n');
  const timer = setTimeout(() => child.kill('SIGTERM'), 5_000);
  await exited;
  clearTimeout(timer);
  return ms;
}

export async function launchPart(rounds: number): Promise<Record<string, unknown>> {
  console.log(`\nlaunch: server_start of a launch { sim: true } target vs the same argv spawned by hand until its port file exists, ${rounds} rounds each, alternating`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bench-launch-'));
  let daemon: Child | null = null;
  try {
    fs.writeFileSync(path.join(dir, 'mcbridge.config.json'), JSON.stringify({ targets: { lab: { launch: { sim: true, cwd: 'lab', autoStart: false } } } }));
    const apiPort = await freePort();
    daemon = spawnChild('launch daemon', [BIN, 'run', '--config', path.join(dir, 'mcbridge.config.json'), '--api-port', String(apiPort), '--log-level', 'warn'], {
      env: { ...process.env, MCBRIDGE_STATE_DIR: path.join(dir, 'state') },
      cwd: dir,
    });
    const d = daemon;
    await withTimeout(
      (async () => {
        for (;;) {
          try {
            await RpcClient.connect(apiPort).then((c) => c.close());
            return;
          } catch {
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      })(),
      20_000,
      'the daemon to listen',
    );
    const client = await guard(d, RpcClient.connect(apiPort));
    let id = 1;
    const status = (await call(client, id++, 'server_status')).answer.result!;
    const argv = status.command!;
    const cwd = status.cwd!;
    const ours: number[] = [];
    const hand: number[] = [];
    // One of each first, unmeasured: the disk cache and the JIT warm for both sides alike.
    for (let i = -1; i < rounds; i += 1) {
      const order = i % 2 === 0 ? ['ours', 'hand'] : ['hand', 'ours'];
      for (const side of order) {
        if (side === 'ours') {
          const { ms } = await guard(d, call(client, id++, 'server_start'));
          await guard(d, call(client, id++, 'server_stop'));
          if (i >= 0) ours.push(ms);
        } else {
          const ms = await byHand(argv, cwd);
          if (i >= 0) hand.push(ms);
        }
      }
    }
    client.close();
    const [m, h] = [median(ours), median(hand)];
    const ratio = m / h;
    printTable(
      ['metric', 'mcbridge', 'by hand (port file)', 'ratio', 'target', 'verdict'],
      [['launch to ready ms (median)', fmtNum(m, 0), fmtNum(h, 0), fmtNum(ratio, 2), `<= ${TARGET}`, ratio <= TARGET ? 'PASS' : 'MISS']],
    );
    return { launchMs: round(m, 1), byHandMs: round(h, 1), ratio: round(ratio, 3), rounds };
  } finally {
    if (daemon) await stopChild(daemon);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
