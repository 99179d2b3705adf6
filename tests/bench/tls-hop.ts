import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { type Caller, hopServer, serveAsChild } from './child-main.js';

/**
 * The floor for a call through any process that speaks control protocol 1 (docs/control.md): a
 * zero-work TLS hop, the twin of hop.ts. It holds one TLS session with the mod's control
 * listener (the certificate checked once against the pin, then `hello` → `welcome`), sends an
 * API line `{"id":N,"method":"state"}` as a request frame `{"type":"request","id":"N","op":
 * "state","params":{}}`, and splices the reply frame's `result`, unparsed, into `{"type":
 * "response","id":N,"ok":true,"result":…}`. TLS, the length prefix and the frame's envelope are
 * all it adds to hop.ts: what the control wire costs on its own.
 *
 * Usage: node tls-hop.js <host:port> <sha256:hex pin> <token file>. Prints {"port":N} on stdout
 * once the session is welcomed; exits when stdin closes or on SIGTERM.
 */

const [address, pin, tokenFile] = process.argv.slice(2);
const split = address?.lastIndexOf(':') ?? -1;
if (!address || !pin || !tokenFile || split < 1) {
  process.stderr.write('usage: tls-hop <host:port> <sha256:hex> <token file>\n');
  process.exit(2);
}
const host = address.slice(0, split);
const port = Number(address.slice(split + 1));
const token = readFileSync(tokenFile, 'utf8').trim();

function fail(why: string): never {
  process.stderr.write(`tls-hop: ${why}\n`);
  process.exit(1);
}

function frame(json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Replies go back in the order their requests went out: the bench calls one at a time. */
const waiting: Caller[] = [];
let welcomed = false;

const REPLY_OK = '{"type":"reply","ok":true,';
const RESULT = '"result":';
const TAIL = ',"serverTimeMillis"';

function onFrame(payload: string): void {
  if (!welcomed) {
    if (!payload.startsWith('{"type":"welcome"')) fail(`the server answered the hello with ${payload.slice(0, 300)}`);
    welcomed = true;
    serveAsChild(server);
    return;
  }
  if (!payload.startsWith('{"type":"reply"')) return; // an event: the sims are idle, but skip it
  const caller = waiting.shift();
  if (!caller || caller.socket.destroyed) return;
  const from = payload.indexOf(RESULT);
  const to = payload.lastIndexOf(TAIL);
  if (payload.startsWith(REPLY_OK) && from !== -1 && to > from) {
    caller.socket.write(`{"type":"response","id":${caller.id},"ok":true,"result":${payload.slice(from + RESULT.length, to)}}\n`);
  } else {
    caller.socket.write(`{"type":"response","id":${caller.id},"ok":false,"error":${JSON.stringify(payload.slice(0, 500))}}\n`);
  }
}

let held: Buffer = Buffer.alloc(0);
const mod = tls.connect({ host, port, rejectUnauthorized: false, checkServerIdentity: () => undefined });
mod.setNoDelay(true);
mod.on('secureConnect', () => {
  const seen = `sha256:${mod.getPeerCertificate().fingerprint256.replace(/:/g, '').toLowerCase()}`;
  if (seen !== pin.toLowerCase()) fail(`the certificate is ${seen}, not the pinned ${pin}`);
  mod.write(frame(JSON.stringify({ type: 'hello', protocol: 1, token, client: { name: 'bench-tls-hop', version: '1' } })));
});
mod.on('data', (chunk: Buffer) => {
  held = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
  while (held.length >= 4) {
    const length = held.readUInt32BE(0);
    if (held.length < 4 + length) break;
    onFrame(held.toString('utf8', 4, 4 + length));
    held = held.subarray(4 + length);
  }
});
mod.on('error', (err) => fail(`control connection failed: ${err.message}`));
mod.on('close', () => process.exit(0));

let next = 0;
const server = hopServer(waiting, (method) => {
  next += 1;
  mod.write(frame(`{"type":"request","id":"h${next}","op":${JSON.stringify(method)},"params":{}}`));
});
