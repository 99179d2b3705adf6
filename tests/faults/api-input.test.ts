import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, defineTool, HOST_API_VERSION } from '../../core/index.js';
import { ERROR_CODES, McbridgeError } from '../../core/host/errors.js';
import { CliProcesses } from '../support/cli-process.js';
import { startStack, waitUntil, type Stack } from '../support/helpers.js';
import { Prng } from '../support/prng.js';
import { SERVER_HELLO, ScriptedMod } from '../support/scripted-mod.js';
import { fuzzCases, oversizeCase, randomChunks, type FuzzCase } from './fuzz-lines.js';
import { ApiSocket, startDaemonProcess, type Frame } from './support.js';

const processes = new CliProcesses();
let stack: Stack | undefined;
let mod: ScriptedMod | undefined;
afterEach(async () => {
  await processes.stopAll();
  await stack?.close();
  await mod?.stop();
  stack = undefined;
  mod = undefined;
});

const TOKEN = 'fault-tests-token-0123456789';
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

function expectCoded(frame: Frame | undefined): void {
  expect(frame).toMatchObject({ type: 'response', ok: false });
  expect(ERROR_CODES).toContain(frame!.code);
  expect(typeof frame!.error).toBe('string');
}

describe('API input a client controls', { timeout: 120_000 }, () => {
  it('a request id nested 5,000 deep (10 KB) gets one coded answer and the daemon process lives, with and without a token', async () => {
    for (const auth of [[], ['--api-token', TOKEN]]) {
      const daemon = await startDaemonProcess(processes, ['--sim', ...auth]);
      const socket = await ApiSocket.open(daemon.port);
      socket.write(`{"id":${deep(5_000)},"method":"ping"}\n`);
      await socket.until(() => socket.responses().length === 1, 'the answer to the deep id');
      expectCoded(socket.frames[0]);
      expect(socket.frames[0]!.id).toBeNull();
      if (auth.length === 0) expect(socket.frames[0]!.code).toBe('invalid_request');

      const next = await ApiSocket.open(daemon.port);
      expect(await next.request({ id: 1, method: 'state', auth: TOKEN })).toMatchObject({ ok: true, result: { type: 'state' } });
      expect(daemon.alive()).toBe(true);
      next.close();
      socket.close();
      await processes.stopAll();
    }
  });

  it('refuses ids that are not a short string, a number or null, echoing none of them', async () => {
    stack = await startStack();
    const socket = await ApiSocket.open(stack.daemon.apiAddress.port);
    for (const id of ['[1]', '{"a":[1]}', 'true', JSON.stringify('i'.repeat(257))]) {
      socket.write(`{"id":${id},"method":"ping"}\n`);
    }
    await socket.until(() => socket.responses().length === 4, 'four answers');
    for (const frame of socket.frames) {
      expect(frame).toMatchObject({ id: null, ok: false, code: 'invalid_request' });
      expect(frame.error).toMatch(/request id must be a string of at most 256 characters, a number or null/);
    }
    expect(await socket.request({ id: 'i'.repeat(256), method: 'ping' })).toMatchObject({ ok: true });
    socket.close();
  });

  it('a tool that throws a plain object is answered with its message or its JSON (bounded), never [object Object]', async () => {
    stack = await startStack();
    const thrower = (name: string, value: () => unknown) =>
      defineTool({
        name,
        description: 'Throws something that is no Error.',
        input: z.object({}),
        run: async () => {
          throw value();
        },
      });
    stack.daemon.host.use(
      definePlugin({
        name: 'odd-throws',
        version: '1.0.0',
        apiVersion: HOST_API_VERSION,
        tools: [
          thrower('throws_message', () => ({ message: 'the lever is stuck', code: 7 })),
          thrower('throws_object', () => ({ lever: 'stuck', tries: 3 })),
          thrower('throws_big', () => ({ pad: 'x'.repeat(10_000) })),
          thrower('throws_cycle', () => {
            const o: Record<string, unknown> = {};
            o.self = o;
            return o;
          }),
        ],
      }),
    );
    const socket = await ApiSocket.open(stack.daemon.apiAddress.port);
    const errorOf = async (method: string) => (await socket.request({ id: method, method })).error as string;
    expect(await errorOf('throws_message')).toBe('internal error: the lever is stuck');
    expect(await errorOf('throws_object')).toBe('internal error: {"lever":"stuck","tries":3}');
    const big = await errorOf('throws_big');
    expect(big.length).toBeLessThan(600);
    expect(big).toMatch(/^internal error: \{"pad":"x+…$/);
    expect(await errorOf('throws_cycle')).toBe('internal error: a thrown object JSON cannot show (keys: self)');
    socket.close();
  });

  it('every request gets exactly one response, with `result` (null when a tool returned nothing) or `error` and `code`', async () => {
    stack = await startStack();
    stack.daemon.host.use(
      definePlugin({
        name: 'odd-results',
        version: '1.0.0',
        apiVersion: HOST_API_VERSION,
        tools: [
          defineTool({ name: 'returns_nothing', description: 'Returns undefined.', input: z.object({}), run: async () => undefined }),
          defineTool({ name: 'returns_function', description: 'Returns a function.', input: z.object({}), run: async () => () => 1 }),
          defineTool({ name: 'returns_bigint', description: 'Returns what JSON cannot hold.', input: z.object({}), run: async () => ({ n: 10n }) }),
          defineTool({
            name: 'fails_with_odd_details',
            description: 'Throws an error whose details JSON cannot hold.',
            input: z.object({}),
            run: async () => {
              throw new McbridgeError('mod_error', 'the mod said no', { count: 10n });
            },
          }),
          defineTool({
            name: 'returns_cycle',
            description: 'Returns a cycle.',
            input: z.object({}),
            run: async () => {
              const o: Record<string, unknown> = {};
              o.self = o;
              return o;
            },
          }),
        ],
      }),
    );
    const socket = await ApiSocket.open(stack.daemon.apiAddress.port);
    const methods = ['returns_nothing', 'returns_function', 'returns_bigint', 'returns_cycle', 'fails_with_odd_details', 'ping', 'stateless_nonsense'];
    for (const [id, method] of methods.entries()) socket.send({ id, method });
    socket.send({ id: 'last', method: 'state' });
    await socket.until(() => socket.responses('last').length === 1, 'the last answer');
    for (let id = 0; id < methods.length; id++) {
      const answers = socket.responses(id);
      expect(answers, methods[id]).toHaveLength(1);
      const [answer] = answers;
      if (answer!.ok) expect(Object.keys(answer!)).toContain('result');
      else expectCoded(answer);
    }
    expect(socket.responses(0)[0]).toEqual({ type: 'response', id: 0, ok: true, result: null });
    expect(socket.responses(1)[0]).toEqual({ type: 'response', id: 1, ok: true, result: null });
    expect(socket.responses(2)[0]).toMatchObject({ ok: false, code: 'internal', error: expect.stringMatching(/could not be sent as JSON/) });
    expect(socket.responses(3)[0]).toMatchObject({ ok: false, code: 'internal' });
    expect(socket.responses(4)[0]).toMatchObject({ ok: false, code: 'internal' });
    socket.close();
  });

  it('10,000 generated bad lines over 4 connections: one coded answer per request line, the daemon lives, RSS bounded', async () => {
    const daemon = await startDaemonProcess(processes, ['--sim']);
    const warm = await ApiSocket.open(daemon.port);
    await warm.request({ id: 0, method: 'state' });
    const rssBefore = daemon.rss();

    const seed = Number(process.env.FUZZ_SEED ?? 4242);
    const rng = new Prng(seed);
    const perConnection = 2_500;
    const runs = await Promise.all(
      [0, 1, 2, 3].map(async (n) => {
        const cases: FuzzCase[] = fuzzCases(rng, perConnection, `c${n}`);
        if (n === 0) cases.splice(100, 0, oversizeCase(), oversizeCase());
        const socket = await ApiSocket.open(daemon.port);
        for (const chunk of randomChunks(rng, cases)) socket.write(chunk);
        socket.send({ id: 'final', method: 'state' });
        return { socket, cases };
      }),
    );

    let requests = 0;
    for (const { socket, cases } of runs) {
      // Sent last on its connection: its answer comes after every answer owed before it.
      await socket.until(() => socket.responses('final').length === 1, 'the final state answer');
      expect(socket.responses('final')[0]).toMatchObject({ ok: true, result: { type: 'state' } });
      const owed = cases.filter((c) => c.answerId !== undefined);
      requests += owed.length;
      const answers = socket.responses().filter((f) => f.id !== 'final');
      expect(answers.length, `seed ${seed}: answers on one connection`).toBe(owed.length);
      for (const answer of answers) expectCoded(answer);
      const counts = new Map<unknown, number>();
      for (const answer of answers) counts.set(answer.id, (counts.get(answer.id) ?? 0) + 1);
      for (const c of owed) {
        const expected = c.answerId === null ? owed.filter((o) => o.answerId === null).length : 1;
        expect(counts.get(c.answerId), `seed ${seed}: ${c.kind} ${c.bytes.subarray(0, 80).toString()}`).toBe(expected);
      }
      socket.close();
    }
    expect(requests).toBeGreaterThan(9_000);
    expect(daemon.alive()).toBe(true);
    expect(await warm.request({ id: 1, method: 'state' })).toMatchObject({ ok: true, result: { type: 'state' } });
    const rssAfter = daemon.rss();
    console.log(`fuzz seed ${seed}: ${requests} request lines answered; daemon RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB before, ${(rssAfter / 2 ** 20).toFixed(0)} MiB after`);
    expect(rssAfter - rssBefore).toBeLessThan(256 * 2 ** 20);
    warm.close();
  });
});

describe('mod lines nested too deep', { timeout: 60_000 }, () => {
  it('a greeting or event past 128 levels is a bad line: dropped, never pushed, and the daemon process lives', async () => {
    mod = await ScriptedMod.start({ hello: null });
    const starting = startDaemonProcess(processes, ['--mod-port', String(mod.port)]);
    await waitUntil(() => mod!.connections.length > 0, 30_000, 'the daemon to dial the mod');
    const link = mod.connections[0]!;
    const hello = JSON.stringify({ ...SERVER_HELLO, port: mod.port });
    link.write(`${hello.slice(0, -1)},"extra":${deep(5_000)}}`);
    link.write(hello);
    const daemon = await starting;

    const socket = await ApiSocket.open(daemon.port);
    expect(await socket.request({ id: 1, method: 'subscribe', params: { events: '*' } })).toMatchObject({ ok: true });
    link.write(`{"event":true,"type":"chat","text":"too deep","extra":${deep(5_000)}}`);
    // 128 levels, the envelope included: still an event.
    link.write(`{"event":true,"type":"chat","text":"${'['.repeat(200)}","extra":${deep(127)}}`);
    link.write('{"event":true,"type":"chat","text":"after"}');
    await socket.until(() => socket.frames.some((f) => f.type === 'event' && f.data?.text === 'after'), 'the event after the deep ones');
    const chats = socket.frames.filter((f) => f.type === 'event' && f.event === 'chat').map((f) => f.data.text);
    expect(chats).toEqual(['['.repeat(200), 'after']);

    const status = await socket.request({ id: 2, method: 'status' });
    expect(status).toMatchObject({ ok: true, result: { connected: true, link: { stats: { badLines: 2 } } } });
    const page = await socket.request({ id: 3, method: 'events', params: { since: 0, category: 'chat' } });
    expect(page.result.events.map((e: Frame) => e.text)).toEqual(['['.repeat(200), 'after']);
    expect(daemon.alive()).toBe(true);
    socket.close();
  });
});
