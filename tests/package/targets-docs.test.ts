import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/cli-process.js';
import { freePort } from '../support/helpers.js';
import { useTemps } from '../support/restore.js';

/**
 * The targets blocks of the README ("Several game servers") and of docs/fork-and-restore.md ("One
 * daemon for both servers"), run by bash as written in an empty folder. Two changes a person does
 * not need: `npx mcbridge` is the built CLI, and the API port is a free one (MCBRIDGE_API_PORT).
 * After `run &` the script waits until every target is connected, as a person would.
 */
const tmp = useTemps('mcbridge-targets-docs-');
const REPO = path.resolve(import.meta.dirname, '../..');

function block(file: string, heading: string): string[] {
  const text = fs.readFileSync(path.join(REPO, file), 'utf8');
  const section = text.slice(text.indexOf(heading));
  const found = /```sh\n([\s\S]*?)```/.exec(section);
  if (!found) throw new Error(`no sh block under ${heading} in ${file}`);
  return found[1]!.trim().split('\n');
}

function script(lines: string[]): string {
  const out = [
    'set -euo pipefail',
    `npx() { shift; node ${JSON.stringify(BIN)} "$@"; }`,
    "trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT",
    `up() { until node ${JSON.stringify(BIN)} call targets 2>/dev/null | grep -q '"connected": true' && ! node ${JSON.stringify(BIN)} call targets | grep -q '"connected": false'; do sleep 0.05; done; }`,
  ];
  for (const line of lines) {
    out.push(line);
    if (/^npx mcbridge run\b.*&/.test(line.replace(/\s+#\s.*$/, ''))) out.push('up');
  }
  return out.join('\n') + '\n';
}

async function run(lines: string[]): Promise<{ code: number | null; stdout: string; stderr: string; body: string }> {
  const cwd = tmp();
  const body = script(lines);
  const env = { ...process.env, MCBRIDGE_API_TOKEN: '', MCBRIDGE_TARGET: '', MCBRIDGE_API_PORT: String(await freePort()) };
  const child = spawn('bash', ['-c', body], { cwd, env, detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // the group is gone already
  }
  await new Promise((r) => setTimeout(r, 300));
  return { code, stdout, stderr, body };
}

describe('the targets blocks of the docs, as written', () => {
  it('README: one daemon, two servers; targets, --target, the default, a read on every target', async () => {
    const r = await run(block('README.md', '## Several game servers'));
    expect(r.code, `${r.body}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/live/);
    expect(r.stdout).toMatch(/lab/);
    const events = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('\n{"targets"') + 1 || r.stdout.lastIndexOf('{\n  "targets"'))) as {
      targets: Record<string, { events: Array<{ text: string; target: string }> }>;
    };
    expect(events.targets.live!.events.map((e) => [e.target, e.text])).toEqual([['live', 'on live']]);
    expect(events.targets.lab!.events.map((e) => [e.target, e.text])).toEqual([['lab', 'on lab']]);
  }, 120_000);

  it('docs/fork-and-restore.md: fork on live, restore dry run and apply on lab, verify ok, one daemon', async () => {
    const r = await run(block('docs/fork-and-restore.md', '## One daemon for both servers'));
    expect(r.code, `${r.body}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/"verdict": "dry-run"/);
    expect(r.stdout).toMatch(/"verdict": "ok"/);
    const verify = r.stdout.slice(r.stdout.lastIndexOf('\n{') + 1);
    expect(JSON.parse(verify)).toMatchObject({ ok: true });
  }, 180_000);
});
