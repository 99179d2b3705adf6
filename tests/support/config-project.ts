/**
 * Throwaway projects in real temp dirs: a package.json, files, and a node_modules in which
 * `mcbridge`, `zod` and the example plugin are installed (linked to this repo's), plus fake
 * plugin packages written on the spot.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '../..');
export { BIN } from './cli-process.js';

export interface Project {
  dir: string;
  write(file: string, content: string): string;
  /** A package in node_modules: package.json plus an ESM index.js with `source`. */
  fakePackage(name: string, source: string, manifest?: Record<string, unknown>): string;
  remove(): void;
}

const made: Project[] = [];

export function project(options: { packageJson?: Record<string, unknown> | false; install?: boolean } = {}): Project {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-config-')));
  const write = (file: string, content: string): string => {
    const full = path.join(dir, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
    return full;
  };
  if (options.packageJson !== false) write('package.json', JSON.stringify({ name: 'test-project', private: true, type: 'module', ...options.packageJson }, null, 2));
  if (options.install !== false) {
    fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
    fs.symlinkSync(REPO, path.join(dir, 'node_modules/mcbridge'), 'dir');
    fs.symlinkSync(path.join(REPO, 'node_modules/zod'), path.join(dir, 'node_modules/zod'), 'dir');
    fs.symlinkSync(fs.realpathSync(path.join(REPO, 'node_modules/mcbridge-plugin-sky')), path.join(dir, 'node_modules/mcbridge-plugin-sky'), 'dir');
  }
  const p: Project = {
    dir,
    write,
    fakePackage(name, source, manifest = {}) {
      write(`node_modules/${name}/package.json`, JSON.stringify({ name, version: '0.0.1', type: 'module', main: 'index.js', ...manifest }));
      return write(`node_modules/${name}/index.js`, source);
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
  made.push(p);
  return p;
}

/** Remove every project made so far (call from afterAll/afterEach). */
export function removeProjects(): void {
  for (const p of made.splice(0)) p.remove();
}

/** A minimal plugin as ESM source, for fake packages. */
export function pluginSource(fields: string, tools = "[{ name: 'fake_tool', description: 'A test tool.', input: z.object({}), run: async () => 'ok' }]"): string {
  return `import { z } from 'zod';\nexport default { name: 'fake', version: '1.0.0', apiVersion: 1, tools: ${tools}, ${fields} };\n`;
}
