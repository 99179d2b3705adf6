/**
 * A daemon stand-in for the journal tests: runs one ServerProcess (plugins/server/process.ts,
 * loaded from source with jiti) of fake-server.mjs under a journal, has it fork its
 * grandchildren, and prints `ready <server pid> <grandchild pids>`; the test then SIGKILLs it.
 * Usage: node server-driver.mjs <journal file>
 */
import path from 'node:path';
import { createJiti } from 'jiti';

const root = path.resolve(import.meta.dirname, '../..');
const jiti = createJiti(import.meta.url, { alias: { 'mcbridge/kit': path.join(root, 'core/kit/index.ts'), mcbridge: path.join(root, 'core/index.ts') } });
const { ProcessJournal } = await jiti.import(path.join(root, 'plugins/server/journal.ts'));
const { ServerProcess } = await jiti.import(path.join(root, 'plugins/server/process.ts'));

const quiet = { info() {}, warn() {}, error() {} };
let text = '';
const server = new ServerProcess({
  target: 'lab',
  command: [process.execPath, path.join(import.meta.dirname, 'fake-server.mjs')],
  cwd: root,
  stopTimeoutMs: 1000,
  journal: new ProcessJournal(process.argv[2]),
  log: quiet,
  onOutput({ data }) {
    text += data.toString();
    const pids = [...text.matchAll(/grandchild (\d+)/g)].map((m) => m[1]);
    if (pids.length === 2) {
      process.stdout.write(`ready ${server.pid} ${pids.join(' ')}\n`);
      text = '';
    }
  },
});
await server.start();
server.send('fork');
