/**
 * Shell blocks of the docs that say "in an empty folder outside the clone, with mcbridge
 * installed", run by bash as written in a fresh temp folder: `mcbridge` is the installed command
 * (here the built CLI), and `npx mcbridge`, which outside the clone fetches nothing, fails the
 * block. Changes a person does not need: the API port, and a fixed control port a block names,
 * are free ones. After `run &` the script waits until every target is connected, and after
 * `sim ... --control ... > FILE &` until the sim has printed its lines to FILE, as a person would.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN } from './cli-process.js';
import { freePort } from './helpers.js';

const REPO = path.resolve(import.meta.dirname, '../..');

/** What the prose before such a block says, in any line wrapping. */
export const OUTSIDE_THE_CLONE = /in an empty\s+folder\s+outside\s+the\s+clone,\s+with\s+mcbridge\s+\[installed\]/i;

/** The first sh block under `heading`, and the prose before it (which says where to run it). */
export function block(file: string, heading: string): string[] & { intro: string } {
  const text = fs.readFileSync(path.join(REPO, file), 'utf8');
  const section = text.slice(text.indexOf(heading));
  const found = /```sh\n([\s\S]*?)```/.exec(section);
  if (!found) throw new Error(`no sh block under ${heading} in ${file}`);
  return Object.assign(found[1]!.trim().split('\n'), { intro: section.slice(0, found.index) });
}

function script(lines: string[]): string {
  const cli = JSON.stringify(BIN);
  const out = [
    'set -euo pipefail',
    `mcbridge() { node ${cli} "$@"; }`,
    `npx() { if [ "\${1:-}" = mcbridge ]; then echo 'npx mcbridge outside the clone fetches nothing: the block must use the installed mcbridge' >&2; return 127; fi; command npx "$@"; }`,
    "trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT",
    `up() { until node ${cli} call targets 2>/dev/null | grep -q '"connected": true' && ! node ${cli} call targets | grep -q '"connected": false'; do sleep 0.05; done; }`,
    'printed() { until grep -q "^$2" "$1" 2>/dev/null; do sleep 0.05; done; }',
  ];
  for (const line of lines) {
    out.push(line);
    const code = line.replace(/\s+#\s.*$/, '');
    if (/^mcbridge run\b.*&/.test(code)) out.push('up');
    const sim = /^mcbridge sim\b.*--control.*>\s*(\S+)\s*&/.exec(code);
    if (sim) out.push(`printed ${sim[1]} token:`);
  }
  return out.join('\n') + '\n';
}

export async function runBlock(lines: string[], cwd: string, fixedPorts: number[] = []): Promise<{ code: number | null; stdout: string; stderr: string; body: string }> {
  // Where the docs say: a folder of its own, outside the clone (whose mcbridge.config.ts would win).
  if (!path.relative(REPO, cwd).startsWith('..') || fs.readdirSync(cwd).length > 0) throw new Error(`${cwd} is not an empty folder outside the clone`);
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
