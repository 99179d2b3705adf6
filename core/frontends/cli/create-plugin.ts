/**
 * `mcbridge create-plugin <name>`: a plugin package that builds, tests and loads as it is: the
 * package.json, tsconfig, source and test that docs/plugins.md ("A plugin package") shows.
 */
import path from 'node:path';
import { runningMcbridgeRoot } from '../../daemon/config/self-alias.js';
import { VERSION } from '../../util/version.js';
import { writeNewFiles } from './scaffold.js';
import { UsageError } from './exit.js';

export interface PluginNames {
  /** The npm package name, e.g. `mcbridge-plugin-weather` or `@acme/mcbridge-plugin-weather`. */
  packageName: string;
  /** What a config lists: `weather`, `@acme/weather`. */
  short: string;
  /** The prefix of its tool names: `weather`. */
  toolPrefix: string;
}

const NPM_NAME = /^(?:@([a-z0-9][a-z0-9._-]*)\/)?([a-z0-9][a-z0-9._-]*)$/;
const PREFIX = 'mcbridge-plugin-';

export function pluginNames(name: string): PluginNames {
  const m = NPM_NAME.exec(name);
  if (!m || name.length > 214) {
    throw new UsageError(`'${name}' is not a package name: use lower-case letters, digits, '-', '.', '_', e.g. weather or @acme/weather`);
  }
  const scope = m[1] ? `@${m[1]}/` : '';
  const base = m[2]!.startsWith(PREFIX) ? m[2]!.slice(PREFIX.length) : m[2]!;
  if (base === '') throw new UsageError(`'${name}' names no plugin after '${PREFIX}', e.g. ${PREFIX}weather`);
  const snake = base.replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return {
    packageName: `${scope}${PREFIX}${base}`,
    short: `${scope}${base}`,
    toolPrefix: (/^[a-z]/.test(snake) ? snake : `p_${snake}`).slice(0, 32),
  };
}

/** `^0.1.0` style: the mcbridge versions whose plugin API and behaviour this one was written for. */
export const MCBRIDGE_RANGE = `^${VERSION}`;

/**
 * mcbridge is a peer, by version range only: a path to this clone would break when the folder
 * moves. npm installs peers, so the README has the clone (or its .tgz) linked first.
 */
export function pluginPackageJson(names: PluginNames): Record<string, unknown> {
  return {
    name: names.packageName,
    version: '0.1.0',
    description: `mcbridge plugin: ${names.short}`,
    type: 'module',
    keywords: ['mcbridge-plugin', 'mcbridge', 'minecraft'],
    engines: { node: '>=20' },
    exports: {
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './package.json': './package.json',
    },
    files: ['dist'],
    scripts: {
      build: 'tsc -p tsconfig.json',
      test: 'vitest run',
      prepack: 'npm run build',
    },
    peerDependencies: { mcbridge: MCBRIDGE_RANGE, zod: '^4.0.0' },
    devDependencies: {
      '@types/node': '^20.19.0',
      typescript: '5.9.3',
      vitest: '4.1.12',
      zod: '^4.0.0',
    },
  };
}

export const PLUGIN_TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "lib": ["ES2023"],
    "types": ["node"],
    "strict": true,
    "skipLibCheck": true,
    "verbatimModuleSyntax": true,
    "declaration": true,
    "sourceMap": true,
    "rootDir": "src",
    "outDir": "dist"
  },
  "include": ["src"]
}
`;

export function pluginSource({ packageName, short, toolPrefix }: PluginNames): string {
  return `/**
 * ${packageName}: an mcbridge plugin. A server's mcbridge.config.ts loads it with
 * \`plugins: ['${short}']\` (or \`[['${short}', { greeting: 'Hi' }]]\`).
 */
import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';

/** The options a config may give: \`['${short}', { greeting: 'Hi' }]\`. Checked by the host. */
const options = z.object({ greeting: z.string().min(1).max(64).default('Hello') }).strict();
const tool = defineTool.withOptions(options);

export default definePlugin({
  name: '${packageName}',
  version: '0.1.0',
  apiVersion: 1,
  description: 'Greets the players who are online',
  requires: { mcbridge: '${MCBRIDGE_RANGE}' },
  options,
  // The mod verbs the tools send and the reply types that answer them (mcbridge's docs/protocol.md).
  verbs: { STATE: { replies: ['state'], requires: ['state'] } },
  tools: [
    tool({
      name: '${toolPrefix}_greet',
      description: 'A greeting for every player online now, by name. Reads the game state; changes nothing.',
      input: z.object({}).strict(),
      output: z.object({ greetings: z.array(z.string()) }),
      requires: ['state'],
      annotations: { readOnly: true, idempotent: true },
      run: async (_args, ctx) => {
        const state = await ctx.request('STATE');
        const players = Array.isArray(state.playerList) ? state.playerList : [];
        return { greetings: players.map((p: { name?: unknown }) => \`\${ctx.config.greeting}, \${String(p.name)}!\`) };
      },
    }),
  ],
});
`;
}

export function pluginTest({ packageName, toolPrefix }: PluginNames): string {
  return `/** ${packageName} on the simulated mod, over real sockets, with mcbridge's testkit. */
import { afterEach, expect, it } from 'vitest';
import { startTestHost, type TestHost } from 'mcbridge/testing';
import plugin from '../src/index.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
});

it('greets every player online', async () => {
  t = await startTestHost({ plugins: [[plugin, { greeting: 'Hi' }]], sim: { players: [{ name: 'Alex' }, { name: 'Sam' }] } });
  expect(await t.call('${toolPrefix}_greet')).toEqual({ greetings: ['Hi, Alex!', 'Hi, Sam!'] });
});

it('refuses options its schema does not allow', async () => {
  await expect(startTestHost({ plugins: [[plugin, { greeting: '' }]] })).rejects.toThrow(/greeting/);
});

it('vanishes on a mod without the state capability', async () => {
  t = await startTestHost({ plugins: [plugin], builtins: false });
  await t.setCapabilities(['entities']);
  expect(await t.hidden()).toHaveProperty('${toolPrefix}_greet');
  expect(await t.available()).not.toContain('${toolPrefix}_greet');
});
`;
}

/** Where mcbridge comes from while it is not on the npm registry: the same line in the README and the CLI's hint. */
export const LINK_MCBRIDGE = 'npm install --no-save';

export function pluginReadme({ packageName, short, toolPrefix }: PluginNames): string {
  return `# ${packageName}

An mcbridge plugin, made with \`mcbridge create-plugin\`.

mcbridge is not on the npm registry, so give npm your copy of it first: the folder of a clone
(built with \`npm run build\`), of a global install (\`$(npm root -g)/mcbridge\`), or the \`.tgz\`
that \`npm pack\` makes there. \`--no-save\` keeps the path out of package.json, so this folder
still works when moved; later \`npm install\`s keep that copy.

\`\`\`sh
${LINK_MCBRIDGE} /path/to/mcbridge   # once; the path create-plugin printed
npm install        # the rest; mcbridge (^${VERSION}) is a peer dependency
npm test           # vitest, on mcbridge's simulated mod
npm run build      # dist/, what the package ships
\`\`\`

Use it from a server directory: \`npm pack\` here, then there
\`npm install --legacy-peer-deps /path/to/<the .tgz>\` (the flag keeps npm from looking for the
\`mcbridge\` peer on the registry, where it is not), and in its \`mcbridge.config.ts\`:

\`\`\`ts
import { defineConfig } from 'mcbridge';

export default defineConfig({ plugins: [['${short}', { greeting: 'Hi' }]] });
\`\`\`

\`mcbridge tools\` then lists \`${toolPrefix}_greet\`.
`;
}

/** Every file of a new plugin package, by path inside it. */
export function pluginFiles(names: PluginNames): Record<string, string> {
  return {
    'package.json': JSON.stringify(pluginPackageJson(names), null, 2) + '\n',
    'tsconfig.json': PLUGIN_TSCONFIG,
    'src/index.ts': pluginSource(names),
    'test/plugin.test.ts': pluginTest(names),
    'README.md': pluginReadme(names),
    '.gitignore': 'node_modules/\ndist/\n',
  };
}

export function createPluginCommand(name: string, opts: { dir?: string }): void {
  const names = pluginNames(name);
  const dir = path.resolve(opts.dir ?? names.packageName.replace(/^@[^/]+\//, ''));
  const written = writeNewFiles(dir, pluginFiles(names), 'Pick another name or --dir, or remove them first.');
  // This machine's copy goes in the hint only, never in a file (the folder may move).
  const mcbridgeDir = runningMcbridgeRoot() ?? '/path/to/mcbridge';
  process.stdout.write(JSON.stringify({ package: names.packageName, dir, files: written.map((f) => path.relative(dir, f)) }, null, 2) + '\n');
  process.stderr.write(`created ${names.packageName} in ${dir}: cd there, then ${LINK_MCBRIDGE} ${JSON.stringify(mcbridgeDir)} && npm install && npm test\n`);
}
