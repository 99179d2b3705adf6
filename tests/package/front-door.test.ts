/**
 * The README is the front door (issue 23, item 6): it opens with the two commands that run the
 * daemon on the simulated mod and the tests, those commands are the ones package.json and CI run,
 * it stays short enough to read in five minutes, and it leads to every page in docs/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/config-project.js';

const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('the README', () => {
  it('opens with the two commands: the daemon on the sim, and the tests', () => {
    const first = /^# mcbridge\n\n```sh\n([\s\S]*?)```/.exec(readme);
    expect(first, 'the README starts with a sh block right under its title').not.toBeNull();
    const commands = first![1]!
      .trim()
      .split('\n')
      .map((line) => line.replace(/\s+#\s.*$/, ''));
    expect(commands).toEqual(['npm ci && npm start', 'npm test']);
  });

  it('names commands that do what it says: start runs the daemon on the sim, CI runs npm test', () => {
    expect(manifest.scripts.start).toBe('node bin/mcbridge.js run --sim');
    expect(manifest.scripts.test).toMatch(/\bvitest run\b/);
    expect(fs.readFileSync(path.join(REPO, '.ci/run'), 'utf8')).toMatch(/^npm test$/m);
  });

  it('reads in five minutes: at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('links every page in docs/', () => {
    const pages = fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) expect(readme, `README does not link docs/${page}`).toContain(`](docs/${page})`);
  });
});
