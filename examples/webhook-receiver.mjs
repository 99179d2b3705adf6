// A webhook receiver for mcbridge: checks the signature, the replay window and the idempotency key.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

export function verify(secret, headers, body, nowMs = Date.now()) {
  const ts = String(headers['x-mc-agent-timestamp'] ?? '');
  if (!/^\d+$/.test(ts) || Math.abs(nowMs / 1000 - Number(ts)) > 300) return false; // 300 s replay window
  const want = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex'));
  const got = Buffer.from(String(headers['x-mc-agent-signature'] ?? ''));
  return got.length === want.length && timingSafeEqual(got, want);
}

export function receiver(secret, onEvent) {
  const seen = new Set(); // eventId: a retry may repeat an event that did arrive (keep it bounded in production)
  return createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!verify(secret, req.headers, body)) return void res.writeHead(401).end();
      const event = JSON.parse(body.toString('utf8'));
      if (!seen.has(event.eventId)) {
        seen.add(event.eventId);
        onEvent(event);
      }
      res.writeHead(204).end();
    });
  });
}

// MC_AGENT_WEBHOOK_SECRET=... node examples/webhook-receiver.mjs   (listens on 127.0.0.1:8080, or PORT)
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.env.MC_AGENT_WEBHOOK_SECRET) throw new Error('set MC_AGENT_WEBHOOK_SECRET to the secret the forwarder signs with');
  receiver(process.env.MC_AGENT_WEBHOOK_SECRET, (e) => console.log(e.eventId, e.type, e.sender, e.data.text ?? '')).listen(Number(process.env.PORT ?? 8080), '127.0.0.1');
}
