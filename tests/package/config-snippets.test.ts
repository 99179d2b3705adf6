import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { project, REPO, removeProjects } from '../support/config-project.js';

/**
 * Every config snippet of the README and docs/*.md (a ```ts or ```js block that calls
 * `defineConfig` or opens with `// mcbridge.config.ts`), type-checked by tsc as a config file
 * against the package's built types (dist/), as a user's editor would check it. A snippet that
 * shows no import gets `import { defineConfig } from 'mcbridge'`, which the page says elsewhere.
 */

interface Snippet {
  /** `docs/control.md:32`: the page and the line of its opening fence. */
  where: string;
  code: string;
}

function configSnippets(): Snippet[] {
  const pages = [
    'README.md',
    ...fs
      .readdirSync(path.join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const found: Snippet[] = [];
  for (const page of pages) {
    const lines = fs.readFileSync(path.join(REPO, page), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(ts|typescript|js|mjs)\s*$/.test(lines[i]!)) continue;
      const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
      const code = lines.slice(i + 1, end).join('\n');
      if (/\bdefineConfig\(/.test(code) || /^\/\/ mcbridge\.config\.[cm]?[jt]s/.test(code)) found.push({ where: `${page}:${i + 1}`, code });
      i = end;
    }
  }
  return found;
}

const snippets = configSnippets();
afterAll(removeProjects);

describe('the config snippets of the docs', () => {
  it('are found on every page that shows one: the README, control, targets, plugins, webhooks, fork-and-restore, servers', () => {
    const pages = new Set(snippets.map((s) => s.where.split(':')[0]));
    expect([...pages].sort()).toEqual(['README.md', 'docs/control.md', 'docs/fork-and-restore.md', 'docs/plugins.md', 'docs/servers.md', 'docs/targets.md', 'docs/webhooks.md']);
    expect(snippets.length).toBeGreaterThanOrEqual(8);
  });

  it("type-check as config files against the package's types", () => {
    const p = project();
    fs.symlinkSync(fs.realpathSync(path.join(REPO, 'node_modules/@types')), path.join(p.dir, 'node_modules/@types'), 'dir');
    const files = snippets.map((s, n) => {
      const imported = /import\s*\{[^}]*\bdefineConfig\b[^}]*\}\s*from\s*'mcbridge'/.test(s.code);
      const file = `snippet-${n}.ts`;
      p.write(file, `${imported ? '' : "import { defineConfig } from 'mcbridge';\n"}${s.code}\n`);
      return { file, ...s };
    });
    const tsc = path.join(REPO, 'node_modules/typescript/bin/tsc');
    const flags = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node'];
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, ...flags, ...files.map((f) => f.file)], { cwd: p.dir, encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      output = String((err as { stdout?: string }).stdout ?? err);
    }
    // Each error under the page and line it came from, so a failure says which snippet to fix.
    const named = files.reduce((text, f) => text.replaceAll(f.file, `${f.where} (${f.file})`), output);
    expect(named, 'a config snippet in the docs fails the config types').toBe('');
  }, 120_000);
});
