// `npm run build`, after tsc: the MCP front-end and the libraries it loads (pino; the MCP SDK's
// HTTP transport, with zod and ajv, as a chunk of its own for `--transport http`) as a few files
// instead of some 250 modules, so `mcbridge mcp` answers its first tools/list sooner (docs/decisions.md, "The MCP front-end is bundled"). The daemon's own code
// (daemon/, host/, plugins/, the sim) stays outside, loaded from dist/ as one copy each: an
// embedded daemon then shares it with everything else in the process.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mcpDir = path.join(root, 'dist', 'core', 'frontends', 'mcp');
const kept = ['daemon', 'host', 'sim'].map((p) => path.join(root, 'dist', 'core', p));

await build({
  input: { 'run.bundle': path.join(mcpDir, 'run.js') },
  platform: 'node',
  external: (id, importer) => {
    if (id.startsWith('node:')) return true;
    const file = importer && id.startsWith('.') ? path.resolve(path.dirname(importer), id) : id;
    return file.startsWith(path.join(root, 'dist', 'plugins')) || kept.some((p) => file === p || file.startsWith(p + path.sep));
  },
  output: { dir: mcpDir, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'bundle-[name]-[hash].js', sourcemap: false },
  logLevel: 'warn',
});
