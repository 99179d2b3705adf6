import net from 'node:net';
import { serveAsChild } from './child-main.js';

/**
 * The benchmark's baseline: the least a relay between the mod and local clients must do,
 * in raw Node. It holds one connection to the mod, splits the mod's stream into lines and
 * writes every event line (one ending in `"event":true}`) to each subscribed client, the
 * writes of one incoming chunk batched per client (cork/uncork: one writev per client per
 * chunk rather than one syscall per line, which would dominate everything else); it
 * forwards a client's request `{"method":"state"}` to the mod as the verb `STATE` and
 * hands the next reply line back to the oldest waiting client. No JSON parsing of
 * events, no buffering, no cursors, no back-pressure policy.
 *
 * Usage: node baseline-relay.js <mod-port>. Prints {"port":<api port>} on stdout when
 * ready; exits when stdin closes (its parent went away) or on SIGTERM.
 */

const modPort = Number(process.argv[2]);
if (!Number.isInteger(modPort) || modPort < 1) {
  process.stderr.write('usage: baseline-relay <mod-port>\n');
  process.exit(2);
}

const EVENT_SUFFIX = Buffer.from('"event":true}');
const subscribers = new Set<net.Socket>();
const waiting: net.Socket[] = [];
let greeted = false;

/** Calls onLine with each complete line (including its '\n'), holding a partial tail. */
function splitLines(onLine: (line: Buffer) => void): (chunk: Buffer) => void {
  let tail: Buffer | null = null;
  return (chunk) => {
    let data = chunk;
    if (tail) {
      data = Buffer.concat([tail, chunk]);
      tail = null;
    }
    let start = 0;
    for (;;) {
      const nl = data.indexOf(10, start);
      if (nl === -1) break;
      onLine(data.subarray(start, nl + 1));
      start = nl + 1;
    }
    if (start < data.length) tail = Buffer.from(data.subarray(start));
  };
}

function isEvent(line: Buffer): boolean {
  let end = line.length - 1; // the '\n'
  if (end > 0 && line[end - 1] === 13) end -= 1;
  const from = end - EVENT_SUFFIX.length;
  return from >= 0 && line.compare(EVENT_SUFFIX, 0, EVENT_SUFFIX.length, from, end) === 0;
}

const mod = net.connect({ host: '127.0.0.1', port: modPort });
mod.setNoDelay(true);
mod.on('error', (err) => {
  process.stderr.write(`baseline relay: mod connection failed: ${err.message}\n`);
  process.exit(1);
});
mod.on('close', () => process.exit(0));
const onModData = splitLines((line) => {
  if (isEvent(line)) {
    for (const sub of subscribers) sub.write(line);
    return;
  }
  if (!greeted) {
    greeted = true; // the greeting
    return;
  }
  const client = waiting.shift();
  if (client && !client.destroyed) client.write(line);
});
mod.on('data', (chunk: Buffer) => {
  for (const sub of subscribers) sub.cork();
  onModData(chunk);
  for (const sub of subscribers) sub.uncork();
});

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  socket.on('error', () => {});
  socket.on('close', () => subscribers.delete(socket));
  socket.on(
    'data',
    splitLines((line) => {
      let method: unknown;
      let id: unknown;
      try {
        ({ method, id } = JSON.parse(line.toString('utf8')) as { method?: unknown; id?: unknown });
      } catch {
        return;
      }
      if (method === 'subscribe') {
        subscribers.add(socket);
        socket.write(JSON.stringify({ type: 'response', id, ok: true, result: { subscribed: ['*'] } }) + '\n');
        return;
      }
      if (typeof method !== 'string' || method === '') return;
      waiting.push(socket);
      mod.write(method.toUpperCase() + '\n');
    }),
  );
});

serveAsChild(server);
