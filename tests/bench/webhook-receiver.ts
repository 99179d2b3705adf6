/**
 * The bench's fast loopback webhook receiver, a child process of its own (so its CPU is not the
 * sender's): verifies each signature as the receiver of docs/webhooks.md does, checks that sequence numbers
 * (the `<stream>:<seq>` event id header) arrive in order, answers 204 at once.
 *
 * stdout: `{"port":n}` once listening, then `done <received> <outOfOrder> <badSignatures>` when
 * the count asked for on stdin (`expect <n>`) has arrived.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

const secret = process.argv[2] ?? '';
let expected = Infinity;
let received = 0;
let outOfOrder = 0;
let badSignatures = 0;
let lastSeq = -1;

function verified(headers: NodeJS.Dict<string | string[]>, body: Buffer): boolean {
  const ts = String(headers['x-mc-agent-timestamp'] ?? '');
  const want = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex'));
  const got = Buffer.from(String(headers['x-mc-agent-signature'] ?? ''));
  return got.length === want.length && timingSafeEqual(got, want);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (!verified(req.headers, Buffer.concat(chunks))) badSignatures += 1;
    const id = String(req.headers['x-mc-agent-event-id'] ?? '');
    const seq = Number(id.slice(id.lastIndexOf(':') + 1));
    if (!(seq > lastSeq)) outOfOrder += 1;
    lastSeq = seq;
    received += 1;
    res.writeHead(204).end();
    if (received === expected) process.stdout.write(`done ${received} ${outOfOrder} ${badSignatures}\n`);
  });
});
server.keepAliveTimeout = 60_000;

createInterface({ input: process.stdin }).on('line', (line) => {
  const [verb, n] = line.split(' ');
  if (verb !== 'expect') return;
  expected = Number(n);
  received = 0;
  outOfOrder = 0;
  badSignatures = 0;
  lastSeq = -1;
});
process.stdin.on('end', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
