/**
 * 'fork/kit': where a finished fork's world copy is, for other plugins (the server plugin resets a
 * lab from it). Each fork with regions is remembered under the daemon's state folder, so a fork
 * taken on one target is found from another and after a restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readOwnFile, writeFileAtomic } from 'mcbridge/kit';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const recordSchema = z.object({
  name: z.string().regex(NAME),
  target: z.string().max(256),
  forkDir: z.string().max(4096),
  snapshotDir: z.string().max(4096),
  at: z.number(),
});
export type ForkRecord = z.infer<typeof recordSchema>;

function recordFile(stateDir: string, name: string): string {
  return path.join(stateDir, 'forks', `${name}.json`);
}

/** Remembers a fork whose world copy is complete (no state folder: nothing to remember it in). */
export async function rememberFork(stateDir: string | null, record: ForkRecord): Promise<void> {
  if (stateDir === null || !NAME.test(record.name)) return;
  fs.mkdirSync(path.join(stateDir, 'forks'), { recursive: true });
  await writeFileAtomic(recordFile(stateDir, record.name), `${JSON.stringify(record)}\n`);
}

/** The fork of that name, or why there is none, said so that the caller knows what to do. */
export function findFork(stateDir: string | null, name: string): ForkRecord | { problem: string } {
  if (!NAME.test(name)) return { problem: `${JSON.stringify(name)} is not a fork name (letters, digits, '.', '_' and '-', e.g. "before-raid")` };
  if (stateDir === null) return { problem: 'this daemon keeps no state folder, so it remembers no forks: run it with a state folder (stateDir)' };
  const read = readOwnFile(recordFile(stateDir, name), 64 * 1024, 'a fork record');
  if (read === null) return { problem: `no fork named ${JSON.stringify(name)} was taken by this daemon: call \`fork\` with name ${JSON.stringify(name)} and regions on first` };
  if ('problem' in read) return { problem: `the record of fork ${JSON.stringify(name)} cannot be used (${read.problem}): take the fork again` };
  let parsed: z.ZodSafeParseResult<ForkRecord>;
  try {
    parsed = recordSchema.safeParse(JSON.parse(read.text));
  } catch {
    return { problem: `the record of fork ${JSON.stringify(name)} is not JSON: take the fork again` };
  }
  if (!parsed.success) return { problem: `the record of fork ${JSON.stringify(name)} is damaged: take the fork again` };
  if (!fs.statSync(parsed.data.forkDir, { throwIfNoEntry: false })?.isDirectory()) {
    return { problem: `the world copy of fork ${JSON.stringify(name)} (${parsed.data.forkDir}) is gone: take the fork again` };
  }
  return parsed.data;
}
