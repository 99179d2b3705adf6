import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the receiver does with one request: answer a status, hang, cut the body short, or answer
 * 503 with a reason phrase that quotes the request's path and query (a careless receiver or proxy),
 * or answer 200 with a 256 KiB body (a receiver that echoes too much), or with 128 KiB (or exactly
 * the 64 KiB post reads) of a body that never ends.
 */
export type Behaviour = number | 'hang' | 'truncate' | 'echo-503' | 'big-200' | 'endless-200' | 'stalled-64k-200';

export interface Hit {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** The signature header matches HMAC-SHA256(secret, "<timestamp>." + body). */
  verified: boolean;
  /** How it was answered. */
  behaviour: Behaviour;
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every signature and records every request.
 * `script` answers requests in turn (then `fallback`); `hits(n)` resolves once n requests arrived.
 */
export async function startReceiver(secret: string, script: Behaviour[] = [], initial: Behaviour = 200) {
  let fallback = initial;
  const hits: Hit[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-mc-agent-timestamp'] ?? '');
      const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`);
      const got = Buffer.from(String(req.headers['x-mc-agent-signature'] ?? ''));
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // a GET has no body
      }
      const behaviour = script.shift() ?? fallback;
      hits.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json, verified: got.length === expected.length && timingSafeEqual(got, expected), behaviour });
      if (behaviour === 'hang') hanging.push(res);
      else if (behaviour === 'big-200') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('x'.repeat(256 * 1024));
      else if (behaviour === 'endless-200' || behaviour === 'stalled-64k-200') {
        hanging.push(res);
        res.writeHead(200, { 'Content-Type': 'text/plain' }).write('x'.repeat(behaviour === 'endless-200' ? 128 * 1024 : 64 * 1024));
      } else if (behaviour === 'echo-503') res.writeHead(503, `Unavailable: ${req.url}`).end();
      else if (behaviour === 'truncate') {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('{"ok":', () => res.destroy());
      } else if (behaviour >= 300 && behaviour < 400) {
        res.writeHead(behaviour, { Location: '/elsewhere' }).end();
      } else {
        res.writeHead(behaviour, { 'Content-Type': 'application/json' }).end('{"ok":true}');
      }
      for (const w of waiters.filter((x) => hits.length >= x.n)) w.resolve();
    });
  });
  let connections = 0;
  let openConnections = 0;
  server.on('connection', (socket) => {
    connections += 1;
    openConnections += 1;
    socket.on('close', () => void (openConnections -= 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hits,
    /** TCP connections accepted so far (kept-alive deliveries share one). */
    connections: () => connections,
    /** TCP connections still open. */
    openConnections: () => openConnections,
    /** How requests are answered from now on, once the script is used up. */
    answer: (behaviour: Behaviour) => void (fallback = behaviour),
    /** Event ids answered with a 2xx, in arrival order (a repeat shows twice). */
    accepted: () => hits.filter((h) => h.behaviour === 'big-200' || (typeof h.behaviour === 'number' && h.behaviour >= 200 && h.behaviour < 300)).map((h) => String(h.json.eventId)),
    url: (path = '/hook/s3cr3t-path?token=querytoken') => `http://127.0.0.1:${port}${path}`,
    /** Resolves once `n` requests have arrived (event-driven: no polling). */
    hitsReached: (n: number) => (hits.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type TestReceiver = Awaited<ReturnType<typeof startReceiver>>;

/** A logger that keeps every line, for the scans that prove no secret or URL path leaks. */
export function captureLog() {
  const lines: string[] = [];
  const put = (level: string) => (obj: object, msg: string) => void lines.push(`${level} ${msg} ${JSON.stringify(obj)}`);
  return { lines, log: { info: put('info'), warn: put('warn'), error: put('error') } };
}
