import net from 'node:net';
import { type Caller, hopServer, lines, serveAsChild } from './child-main.js';

/**
 * The floor for a call through any daemon in the middle: a zero-work hop. It holds its own
 * connection to the mod, forwards an API line `{"id":N,"method":"state"}` as the verb `STATE`
 * and splices the mod's reply line, unparsed, into `{"type":"response","id":N,"ok":true,
 * "result":<line>}`. Two wake-ups and two socket writes per call, nothing else: the daemon's
 * call figures are reported as ratios to this.
 *
 * Usage: node hop.js <mod-port>. Prints {"port":<api port>} on stdout when ready; exits
 * when stdin closes (its parent went away) or on SIGTERM.
 */

const modPort = Number(process.argv[2]);
if (!Number.isInteger(modPort) || modPort < 1) {
  process.stderr.write('usage: hop <mod-port>\n');
  process.exit(2);
}

/** Replies go back in the order their requests went out: the mod answers one at a time. */
const waiting: Caller[] = [];
let greeted = false;

const mod = net.connect({ host: '127.0.0.1', port: modPort });
mod.setNoDelay(true);
mod.setEncoding('utf8');
mod.on('error', (err) => {
  process.stderr.write(`hop: mod connection failed: ${err.message}\n`);
  process.exit(1);
});
mod.on('close', () => process.exit(0));
mod.on(
  'data',
  lines((line) => {
    if (!greeted) {
      greeted = true; // the greeting
      return;
    }
    if (line.endsWith('"event":true}')) return;
    const caller = waiting.shift();
    if (caller && !caller.socket.destroyed) caller.socket.write(`{"type":"response","id":${caller.id},"ok":true,"result":${line}}\n`);
  }),
);

const server = hopServer(waiting, (method) => mod.write(method.toUpperCase() + '\n'));

serveAsChild(server);
