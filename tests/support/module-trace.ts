/**
 * Which modules a CLI process loads: a preload (given through NODE_OPTIONS, so runCli and
 * CliProcesses need nothing new) registers a module hook that appends every module URL the ESM
 * loader loads to a file. Packages show up by their entry (`node_modules/zod/...`), our own
 * files by their `dist/` path.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ModuleTrace {
  /** The environment for the traced process (NODE_OPTIONS with the preload, and the output file). */
  env: NodeJS.ProcessEnv;
  /** The URLs loaded so far, outside node's own built-ins. */
  loaded(): string[];
  /** The loaded URLs that contain `fragment` (a package or a folder, e.g. `/node_modules/zod/`). */
  matching(fragment: string): string[];
}

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(process.env.MCBRIDGE_TRACE_FILE, url + '\\n');
  return next(url, context);
}
`;

const REGISTER = `import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);
`;

/** A fresh trace; each process started with its `env` adds to it. */
export function moduleTrace(): ModuleTrace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-trace-'));
  fs.writeFileSync(path.join(dir, 'hooks.mjs'), HOOKS);
  fs.writeFileSync(path.join(dir, 'register.mjs'), REGISTER);
  const file = path.join(dir, 'loaded.txt');
  fs.writeFileSync(file, '');
  const loaded = () => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return {
    env: { NODE_OPTIONS: `--import=${path.join(dir, 'register.mjs')}`, MCBRIDGE_TRACE_FILE: file },
    loaded,
    matching: (fragment) => loaded().filter((url) => url.includes(fragment)),
  };
}
