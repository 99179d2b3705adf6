import type { Agent as HttpAgent } from 'node:http';
import { createRequire } from 'node:module';

// Node's HTTP stack (http, https, tls: about 2 MB resident in a bare node process) loads on
// first use, so a daemon with no receivers never carries it.
const require = createRequire(import.meta.url);
const http = (): typeof import('node:http') => require('node:http') as typeof import('node:http');
const https = (): typeof import('node:https') => require('node:https') as typeof import('node:https');

/**
 * One kept-alive connection per receiver: deliveries are sequential, so one socket serves them
 * all (a new TCP connection per event costs more than the POST), and a hanging receiver holds
 * only its own.
 */
export function receiverAgent(url: URL): HttpAgent {
  const options = { keepAlive: true, maxSockets: 1 };
  return url.protocol === 'https:' ? new (https().Agent)(options) : new (http().Agent)(options);
}

/** How one attempt ended: delivered, worth retrying, or refused for good. */
export type Outcome = { kind: 'delivered'; status: number } | { kind: 'retry'; status?: number; error: string } | { kind: 'permanent'; status: number; error: string };

/**
 * `HTTP <status>`, plus the receiver's reason phrase when it is not the standard one (it may say
 * why it refused). Receiver text, so bounded and stripped of control characters; the caller's
 * sanitiser removes the URL, path, query and secret from it like from any other message.
 */
function statusText(status: number, reason: string | undefined): string {
  const said = (reason ?? '')
    .replace(/\p{Cc}/gu, ' ')
    .trim()
    .slice(0, 200);
  return said && said !== http().STATUS_CODES[status] ? `HTTP ${status} (the receiver said: ${said})` : `HTTP ${status}`;
}

/** Transient by the predecessor's rule: 5xx, 408, 425, 429. Every other non-2xx is final. */
export function classify(status: number, reason?: string): Outcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  const error = statusText(status, reason);
  if (status >= 500 || status === 408 || status === 425 || status === 429) return { kind: 'retry', status, error };
  // A redirect is never followed: a client that follows a 302/303 turns the signed POST into a GET.
  if (status >= 300 && status < 400) return { kind: 'permanent', status, error: `${error} redirect was not followed` };
  return { kind: 'permanent', status, error };
}

/** The most of a response body read before it is dropped: receivers should answer briefly. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One POST. The whole exchange (connect, send, status, body) must finish within `timeoutMs`,
 * so a receiver that hangs at any point is cut off. A response is delivered only once its body
 * ended cleanly: one cut short (the socket closed mid-body) is retried, since the receiver may
 * not have finished handling it and `eventId` makes the retry safe.
 */
export function post(url: URL, body: string, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal, agent?: HttpAgent): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const send = url.protocol === 'https:' ? https().request : http().request;
    headers['Content-Length'] = String(Buffer.byteLength(body));
    const req = send(url, { method: 'POST', headers, ...(agent ? { agent } : {}) });
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'retry', error: `no complete response within ${timeoutMs} ms` }), timeoutMs);
    const onAbort = () => finish({ kind: 'retry', error: 'stopped' });
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish({ kind: 'retry', error: `network error: ${err.message}` }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // The status is known and the rest is not needed: settle on it before cutting the body off,
        // so the cut is never mistaken for a truncated answer.
        if (read > MAX_RESPONSE_BYTES) finish(classify(status, res.statusMessage));
      });
      const cut = () => finish({ kind: 'retry', status, error: `truncated response (HTTP ${status})` });
      res.on('aborted', cut);
      res.on('error', (err) => finish({ kind: 'retry', status, error: `truncated response (HTTP ${status}): ${err.message}` }));
      res.on('end', () => (res.complete ? finish(classify(status, res.statusMessage)) : cut()));
      res.on('close', () => {
        if (!res.complete) cut();
      });
    });
    req.end(body, 'utf8');
  });
}
