/**
 * A child of the bench's `cli` part: the least any mcbridge daemon holds at rest, for scale next
 * to the real one. It keeps what no daemon of ours can do without (our pino logger, the event
 * log, the mod link connected to the mod, and a listening API socket) and nothing else: no
 * plugin, no tool, no zod, no commander. Started like `run` (young generation held while it
 * loads). Usage: node idle-floor.js <mod-port>; prints {"ready":true} once the link is up.
 */
import net from 'node:net';
import { holdYoungGeneration } from '../../core/util/young-generation.js';

const release = holdYoungGeneration();
const modPort = Number(process.argv[2]);
const [{ createLogger }, { EventLog }, { ModLink }] = await Promise.all([import('../../core/util/log.js'), import('../../core/host/events/event-log.js'), import('../../core/host/link/mod-link.js')]);
const log = createLogger({ level: 'warn', format: 'json' });
const events = new EventLog({ capacity: 1000 });
const link = new ModLink({ vantage: 'server', modPort, log, onEvent: (event, line) => void events.record(event, line) });
const api = net.createServer((socket) => socket.resume());
api.listen(0, '127.0.0.1');
link.on('state', () => {
  if (!link.connected) return;
  release();
  process.stdout.write('{"ready":true}\n');
});
link.start();
process.stdin.resume().on('end', () => process.exit(0));
