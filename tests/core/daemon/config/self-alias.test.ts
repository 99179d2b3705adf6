/**
 * A server directory with nothing installed (no package.json, no node_modules anywhere above it)
 * still loads a `mcbridge.config.ts` that imports 'mcbridge', 'mcbridge/kit' and 'zod': the loader
 * resolves them to the running mcbridge's copies.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runningPackageAliases } from '../../../../core/daemon/config/self-alias.js';
import { startTestHost } from '../../../../core/testing/index.js';
import { REPO } from '../../../support/config-project.js';
import { runCli } from '../../../support/cli-process.js';

const CONFIG = `import { z } from 'zod';
import { defineComposite, defineConfig, McbridgeError } from 'mcbridge';
import { lineText } from 'mcbridge/kit';

export default defineConfig({
  composites: [
    defineComposite({
      name: 'shout',
      description: 'Upper-cases one line of text.',
      input: z.object({ text: lineText('text', '"hello"') }).strict(),
      run: async ({ args }) => {
        if (args.text === 'quiet') throw new McbridgeError('invalid_params', 'nothing to shout');
        return args.text.toUpperCase();
      },
    }),
  ],
});
`;

const bare = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bare-')));
const file = path.join(bare, 'mcbridge.config.ts');
fs.writeFileSync(file, CONFIG);

afterAll(() => fs.rmSync(bare, { recursive: true, force: true }));

function hasNodeModulesAbove(dir: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'node_modules'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

describe('a config in a directory where mcbridge is not installed', () => {
  it('is really outside any installation', () => {
    expect(hasNodeModulesAbove(bare)).toBe(false);
  });

  it('maps mcbridge, its entry points and zod to the running copies', () => {
    const aliases = runningPackageAliases();
    expect(aliases).toMatchObject({
      mcbridge: path.join(REPO, 'dist/core/index.js'),
      'mcbridge/kit': path.join(REPO, 'dist/core/kit/index.js'),
      'mcbridge/testing': path.join(REPO, 'dist/core/testing/index.js'),
      zod: path.join(REPO, 'node_modules/zod/index.js'),
      'zod/v4': path.join(REPO, 'node_modules/zod/v4/index.js'),
    });
    for (const target of Object.values(aliases)) expect(fs.existsSync(target), target).toBe(true);
  });

  it('`mcbridge config` loads it (worker probe and daemon load alike)', async () => {
    const run = await runCli(['config'], { cwd: bare });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ file, composites: [{ name: 'shout' }] });
  });

  it("a daemon serves its composite, and the error class it throws is the daemon's own", async () => {
    const t = await startTestHost({ config: file, builtins: false });
    try {
      expect(await t.call('shout', { text: 'hello' })).toBe('HELLO');
      expect(await t.callError('shout', { text: 'quiet' })).toMatchObject({ code: 'invalid_params', message: expect.stringContaining('nothing to shout') });
    } finally {
      await t.close();
    }
  });
});
