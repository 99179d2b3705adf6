/**
 * The front-end's stdio transport (core/frontends/mcp/stdio.ts) on in-process streams: framing,
 * a line that is not JSON, a line over the bound, and close.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RPC } from '../../../../core/frontends/mcp/jsonrpc.js';
import { StdioTransport } from '../../../../core/frontends/mcp/stdio.js';
import type { Logger } from '../../../../core/util/log.js';
import { waitUntil } from '../../../support/helpers.js';

async function started(maxLineBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioTransport(stdin, stdout, { maxLineBytes });
  const received: unknown[] = [];
  transport.onmessage = (message) => received.push(message);
  let written = '';
  stdout.setEncoding('utf8').on('data', (s: string) => (written += s));
  await transport.start();
  const answers = () =>
    written
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stdin, stdout, transport, received, answers };
}

describe('the stdio transport', () => {
  it('frames messages by line, across chunks and with CRLF, and writes one line per message', async () => {
    const t = await started();
    t.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0",');
    t.stdin.write('"id":2,"method":"ping"}\r\n\n');
    await waitUntil(() => t.received.length === 2, 2_000, 'two messages');
    expect(t.received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    await t.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await waitUntil(() => t.answers().length === 1, 2_000, 'the answer');
    expect(t.answers()).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('answers a line that is not JSON, or one over the bound, with an error, and goes on with the next', async () => {
    const t = await started(64);
    t.stdin.write('this is not json\n');
    t.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"${'a'.repeat(100)}"}}\n`);
    t.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await waitUntil(() => t.received.length === 1 && t.answers().length === 2, 2_000, 'two errors and a message');
    const [parse, over] = t.answers();
    expect(parse).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: RPC.parseError, message: expect.stringMatching(/^Parse error: each line must be one JSON-RPC message/) } });
    expect(over).toMatchObject({ id: null, error: { code: RPC.invalidRequest, message: expect.stringMatching(/^a message of 1\d\d bytes is over the 64-byte bound and was dropped$/) } });
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 3, method: 'ping' }]);
  });

  it('drops a message nesting deeper than 64 levels before parsing it, and says so with its id when the id is readable', async () => {
    const t = await started();
    const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    t.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"x","params":${nested(64)}}\n`);
    t.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"x","params":${nested(63)}}\n`);
    t.stdin.write(`{"jsonrpc":"2.0","params":${nested(70)},"id":"after"}\n`);
    t.stdin.write(`{"jsonrpc":"2.0","method":"x","id":${nested(70)}}\n`);
    await waitUntil(() => t.received.length === 1 && t.answers().length === 3, 2_000, 'three errors and a message');
    const error = { code: RPC.invalidRequest, message: 'a message nesting deeper than 64 levels was dropped: tool arguments nest a few levels at most' };
    expect(t.answers()).toEqual([
      { jsonrpc: '2.0', id: 1, error },
      { jsonrpc: '2.0', id: 'after', error },
      { jsonrpc: '2.0', id: null, error },
    ]);
    expect((t.received[0] as { id: number }).id).toBe(2);
  });

  it('close stops reading and says so once; it cannot start twice; stdin errors are reported until then', async () => {
    const t = await started();
    await expect(t.transport.start()).rejects.toThrow(/already started/);
    t.stdin.emit('error', new Error('nobody listens yet')); // no onerror: not a throw
    const errors: string[] = [];
    t.transport.onerror = (error) => errors.push(error.message);
    t.stdin.emit('error', new Error('read failed'));
    t.stdout.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(errors).toEqual(['read failed', 'write EPIPE']);
    let closed = 0;
    t.transport.onclose = () => (closed += 1);
    await t.transport.close();
    // Even with the stream flowing again, nothing reaches the closed transport.
    t.stdin.resume();
    t.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(t.received).toEqual([]);
    expect(closed).toBe(1);
    expect(t.stdin.listenerCount('error')).toBe(0);
    expect(t.stdout.listenerCount('error')).toBe(0);
  });

  it('skips blank lines, copes without handlers, and waits for a slow stdout to drain', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough({ highWaterMark: 16 });
    const transport = new StdioTransport(stdin, stdout);
    await transport.start();
    stdin.write('   \n\t\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n'); // no onmessage yet: dropped quietly
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stdout.read()).toBeNull();
    let drained = false;
    const sending = transport.send({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(64) } }).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(drained).toBe(false);
    expect(JSON.parse(String(stdout.read()))).toEqual({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(64) } });
    await sending;
    expect(drained).toBe(true);
    await transport.close();
  });

  it('refuses a number id JSON cannot carry exactly, echoing it as written; safe ids pass', async () => {
    const t = await started();
    let written = '';
    t.stdout.on('data', (d: string) => (written += d));
    t.stdin.write('{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n');
    t.stdin.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n');
    t.stdin.write('{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}\n');
    t.stdin.write('{"jsonrpc":"2.0","id":-1.5,"method":"ping"}\n');
    await waitUntil(() => t.received.length === 2 && t.answers().length === 2, 2_000, 'two refusals and two messages');
    const lines = written.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^\{"jsonrpc":"2.0","id":1e400,"error":\{"code":-32600,"message":"a number id that JSON cannot carry exactly \(1e400\)/);
    expect(lines[1]).toMatch(/^\{"jsonrpc":"2.0","id":9007199254740993,"error":\{"code":-32600,/);
    expect(t.received.map((m) => (m as { id: number }).id)).toEqual([9007199254740991, -1.5]);
  });

  it('stops reading while its unsent answers are over the bound, goes on once they drain, and closes past the hard bound', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough({ highWaterMark: 1024 });
    const warned: string[] = [];
    const log = { warn: (_o: unknown, m: string) => warned.push(m), error: (_o: unknown, m: string) => warned.push(m) } as unknown as Logger;
    const transport = new StdioTransport(stdin, stdout, { pauseAboveBytes: 8 * 1024, maxUnsentBytes: 64 * 1024, log });
    let handled = 0;
    transport.onmessage = (m) => {
      handled += 1;
      void transport.send({ jsonrpc: '2.0', id: (m as { id: number }).id, result: { pad: 'x'.repeat(1000) } });
    };
    let closed = false;
    transport.onclose = () => (closed = true);
    await transport.start();
    for (let i = 0; i < 200; i++) stdin.write(`{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // About the pause bound's worth of answers, not 200 of them.
    expect(handled).toBeLessThan(40);
    expect(stdout.writableLength).toBeLessThan(8 * 1024 + 16 * 1100);
    expect(warned[0]).toMatch(/not reading its answers/);
    let answers = 0;
    stdout.setEncoding('utf8').on('data', (d: string) => (answers += d.split('\n').length - 1));
    await waitUntil(() => answers === 200, 5_000, 'every answer once the client reads');
    expect(handled).toBe(200);
    expect(closed).toBe(false);

    // Answers owed past the hard bound (the client reads nothing any more): closed, and said so.
    stdout.pause();
    stdout.removeAllListeners('data');
    for (let i = 0; i < 80 && !closed; i++) void transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { pad: 'y'.repeat(1000) } });
    expect(closed).toBe(true);
    expect(warned.at(-1)).toMatch(/closing MCP stdio: the client does not read its answers/);
  });
});
