/**
 * `mcbridge init`: a commented `mcbridge.config.ts` for a server directory. It imports only what
 * the config loader resolves to the running mcbridge ('mcbridge', 'zod'), so it loads with
 * nothing installed next to it.
 */
import path from 'node:path';
import { writeNewFiles } from './scaffold.js';

export const INIT_CONFIG = `/**
 * mcbridge's config for this server directory. \`mcbridge run\` started here reads it, and applies
 * your edits while it runs (plugins, composites, policy; daemon options at the next start).
 * \`mcbridge config\` prints what it resolves to. Every key is optional; all of them are in
 * mcbridge's docs/plugins.md ("The config file"). Flags and environment variables win over it.
 */
import { z } from 'zod';
import { defineComposite, defineConfig } from 'mcbridge';

export default defineConfig({
  // Daemon options: the \`mcbridge run\` flags, camelCased.
  // apiPort: 8765,                 // the local API (and what \`mcbridge mcp\` talks to)
  // serverDir: '/srv/minecraft',   // where mc-agent-server/port.txt is; default: this directory
  // sim: true,                     // a simulated mod instead of the game, to try things out

  // What agents may use: tool names, globs, or selectors such as 'cap:command'.
  // readOnly: true,
  // deny: ['command'],

  // Plugins from npm, installed in this directory: 'sky' finds mcbridge-plugin-sky.
  // plugins: [['sky', { defaultWeatherSeconds: 300 }]],

  // Tools of your own, made of other tools. Saved edits are live at once.
  composites: [
    defineComposite({
      name: 'online_players',
      description: 'The names of the players online now. Cheap and changes nothing.',
      uses: ['state'],
      output: z.array(z.string()),
      run: async ({ state }) => {
        const { playerList } = await state();
        return Array.isArray(playerList) ? playerList.map((p: { name?: unknown }) => String(p.name)) : [];
      },
    }),
  ],
});
`;

export function initCommand(opts: { dir?: string }): void {
  const dir = path.resolve(opts.dir ?? '.');
  const [file] = writeNewFiles(dir, { 'mcbridge.config.ts': INIT_CONFIG }, 'Edit the one there (mcbridge config shows what it holds), or remove it first.');
  process.stdout.write(JSON.stringify({ file }) + '\n');
  process.stderr.write(`wrote ${file}: \`mcbridge run\` in ${dir} reads it (\`mcbridge run --sim\` to try it on the simulated mod)\n`);
}
