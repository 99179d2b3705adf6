import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/cli-process.js';
import { freePort } from '../support/helpers.js';
import { useTemps } from '../support/restore.js';

/**
 * docs/fork-and-restore.md's "Fork live → restore into a lab server → verify" block, run as written by bash,
 * with three changes a person typing it does not need: `npx mcbridge` is the built CLI, the API
 * ports are free ones (so parallel test runs do not collide), and after starting a daemon the
 * script waits until it is connected, as a person would before typing the next command.
 */
const tmp = useTemps('mcbridge-doc-workflow-');
const PAGE = path.resolve(import.meta.dirname, '../../docs/fork-and-restore.md');

function workflowBlock(): string[] {
  const text = fs.readFileSync(PAGE, 'utf8');
  const section = text.slice(text.indexOf('## Fork live → restore into a lab server → verify'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('no sh block in the workflow section of docs/fork-and-restore.md');
  return block[1]!.trim().split('\n');
}

function script(lines: string[], livePort: number, labPort: number): string {
  const out: string[] = [
    'set -euo pipefail',
    `npx() { shift; node ${JSON.stringify(BIN)} "$@"; }`,
    "trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT",
    `connected() { until node ${JSON.stringify(BIN)} call status --api-port "$1" 2>/dev/null | grep -q '"connected": *true'; do sleep 0.05; done; }`,
  ];
  let calls = 0;
  for (const raw of lines) {
    let line = raw.replace(/\s+#\s.*$/, '').replaceAll('8766', String(labPort));
    const isDaemonCommand = /^npx mcbridge (run|call)\b/.test(line);
    const background = line.endsWith('&');
    if (isDaemonCommand && !line.includes('--api-port')) line = line.replace(/\s*&?$/, ` --api-port ${livePort}${background ? ' &' : ''}`);
    if (line.startsWith('npx mcbridge call')) line += ` > out-${++calls}.json`;
    out.push(line);
    const daemon = /^npx mcbridge run .*--api-port (\d+)/.exec(line);
    if (daemon) out.push(`connected ${daemon[1]}`);
  }
  return out.join('\n') + '\n';
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopGroup(pgid: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  process.kill(-pgid, 'SIGTERM');
  for (let i = 0; i < 200 && groupAlive(pgid); i++) await new Promise((r) => setTimeout(r, 25));
  if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  while (groupAlive(pgid)) await new Promise((r) => setTimeout(r, 25));
}

describe('the fork and restore workflow of docs/fork-and-restore.md', () => {
  it('the fork → restore → verify commands work as written', async () => {
    const cwd = tmp();
    const [livePort, labPort] = [await freePort(), await freePort()];
    const body = script(workflowBlock(), livePort, labPort);
    // A process group of its own: the trap kills the script's background jobs, which are subshells
    // running the `npx` function, and their node children would outlive them.
    const child = spawn('bash', ['-c', body], { cwd, env: { ...process.env, MCBRIDGE_API_TOKEN: '' }, detached: true });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    // The group's daemons and sims still write (a sim saves its world on SIGTERM): wait until the
    // group is gone before the temporary directory is removed.
    await stopGroup(child.pid!);
    expect(code, `${body}\n${stderr.slice(-4000)}`).toBe(0);
    const outputs = fs
      .readdirSync(cwd)
      .filter((f) => /^out-\d+\.json$/.test(f))
      .sort();
    expect(outputs).toEqual(['out-1.json', 'out-2.json', 'out-3.json', 'out-4.json']);
    const read = (n: number) => JSON.parse(fs.readFileSync(path.join(cwd, `out-${n}.json`), 'utf8'));
    const fork = read(1);
    expect(read(2)).toMatchObject({ verdict: 'dry-run', summonable: fork.entities });
    expect(read(3)).toMatchObject({ verdict: 'ok', issued: fork.entities, tick: { preserved: true } });
    expect(read(4)).toMatchObject({ ok: true, verification: { matched: fork.entities } });
  }, 120_000);
});
