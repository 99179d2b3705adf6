import net from 'node:net';
import { Console } from 'node:console';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { McbridgeError } from '../../../../core/host/errors.js';
import { keepStdoutForProtocol } from '../../../../core/frontends/mcp/run.js';
import { DaemonUpstream } from '../../../../core/frontends/mcp/upstream.js';
import { silentLogger } from '../../../../core/util/log.js';
import { freePort } from '../../../support/helpers.js';

describe('MCP front-end review fixes', () => {
  it('a call cancelled while the upstream waits for the daemon is never sent to it', async () => {
    const port = await freePort();
    const upstream = new DaemonUpstream({ api: { port }, log: silentLogger(), reconnectMinMs: 60_000, reconnectMaxMs: 60_000, startupWaitMs: 0 });
    const firstAttempt = new Promise<void>((resolve) => upstream.once('attempt', () => resolve()));
    upstream.start();
    await firstAttempt; // nothing listens yet: the loop now sleeps a minute

    const controller = new AbortController();
    const methods: string[] = [];
    const server = net.createServer((socket) => {
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const frame = JSON.parse(buffered.slice(0, nl)) as { id: number | string; method: string };
          buffered = buffered.slice(nl + 1);
          methods.push(frame.method);
          // The caller cancels while the front-end is still attaching to the daemon.
          if (frame.method === 'subscribe') controller.abort();
          if (frame.method === 'subscribe' || frame.method === 'tools' || frame.method === 'marker') {
            const result = frame.method === 'tools' ? { revision: 1, tools: [], capsSource: 'mod', connected: true, vantage: 'server' } : frame.method === 'marker' ? {} : { subscribed: ['surface'] };
            socket.write(JSON.stringify({ type: 'response', id: frame.id, ok: true, result }) + '\n');
          }
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const outcome = await upstream.call('wait', { ticks: 1000 }, { signal: controller.signal }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(outcome).toBeInstanceOf(McbridgeError);
      expect((outcome as McbridgeError).code).toBe('cancelled');
      // One connection keeps frame order: once a later call has arrived, a stray `wait` would have arrived before it.
      await upstream.call('marker', {});
      expect(methods).toEqual(['subscribe', 'tools', 'marker']);
    } finally {
      await upstream.close();
      server.close();
    }
  });

  it('stdio mode keeps console.dir off stdout', () => {
    const out = new PassThrough();
    const err = new PassThrough();
    const target = new Console({ stdout: out, stderr: err });
    let written = '';
    let diverted = '';
    out.on('data', (c) => (written += String(c)));
    err.on('data', (c) => (diverted += String(c)));
    keepStdoutForProtocol(target);
    target.log('a');
    target.info('b');
    target.debug('c');
    target.dir({ d: 1 });
    target.table([{ e: 1 }]);
    expect(written).toBe('');
    expect(diverted).toContain('{ d: 1 }');
  });
});
