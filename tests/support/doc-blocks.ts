/**
 * Shell blocks of the docs, run by bash as written in an empty folder. Changes a person does not
 * need: `npx mcbridge` is the built CLI; the API port, and a fixed control port a block names, are
 * free ones. After `run &` the script waits until every target is connected, and after
 * `sim ... --control ... > FILE &` until the sim has printed its lines to FILE, as a person would.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN } from './cli-process.js';
import { freePort } from './helpers.js';

const REPO = path.resolve(import.meta.dirname, '../..');

export function block(file: string, heading: string): string[] {
  const text = fs.readFileSync(path.join(REPO, file), 'utf8');
  const section = text.slice(text.indexOf(heading));
  const found = /```sh\n([\s\S]*?)```/.exec(section);
  if (!found) throw new Error(`no sh block under ${heading} in ${file}`);
  return found[1]!.trim().split('\n');
}

function script(lines: string[]): string {
  const cli = JSON.stringify(BIN);
  const out = [
    'set -euo pipefail',
    `npx() { shift; node ${cli} "$@"; }`,
    "trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT",
    `up() { until node ${cli} call targets 2>/dev/null | grep -q '"connected": true' && ! node ${cli} call targets | grep -q '"connected": false'; do sleep 0.05; done; }`,
    'printed() { until grep -q "^$2" "$1" 2>/dev/null; do sleep 0.05; done; }',
  ];
  for (const line of lines) {
    out.push(line);
    const code = line.replace(/\s+#\s.*$/, '');
    if (/^npx mcbridge run\b.*&/.test(code)) out.push('up');
    const sim = /^npx mcbridge sim\b.*--control.*>\s*(\S+)\s*&/.exec(code);
    if (sim) out.push(`printed ${sim[1]} token:`);
  }
  return out.join('\n') + '\n';
}

export async function runBlock(lines: string[], cwd: string, fixedPorts: number[] = []): Promise<{ code: number | null; stdout: string; stderr: string; body: string }> {
  let body = script(lines);
  for (const port of fixedPorts) body = body.replaceAll(String(port), String(await freePort()));
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
