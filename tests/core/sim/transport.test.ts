import fs from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_CAPABILITIES, startSim, type SimulatedMod } from '../../../core/sim/index.js';
import { LineClient, sleep, until } from '../../support/line-client.js';

let sim: SimulatedMod | undefined;
const clients: LineClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await sim?.stop();
  sim = undefined;
});

async function connect(s: SimulatedMod): Promise<LineClient> {
  const client = await LineClient.connect(s.port);
  clients.push(client);
  return client;
}

describe('greeting', () => {
  it('speaks first, with the exact field order, no millis and no event flag', async () => {
    sim = await startSim({ autoTick: false });
    const client = await connect(sim);
    const line = await client.nextLine();
    expect(line).toBe(
      `{"type":"hello","mod":"mc-agent-interface","version":"0.8.0","protocol":1,"minecraft":"26.2","port":${sim.port},` + `"instance":"server","capabilities":${JSON.stringify(SERVER_CAPABILITIES)}}`,
    );
    expect(Object.keys(JSON.parse(line))).toEqual(['type', 'mod', 'version', 'protocol', 'minecraft', 'port', 'instance', 'capabilities']);
  });

  it('uses the configured version and capabilities, and setCapabilities changes later hellos and CAPS', async () => {
    sim = await startSim({ autoTick: false, version: '0.9.1', capabilities: ['state', 'wait'] });
    const { client, hello } = await LineClient.open(sim.port);
    clients.push(client);
    expect(hello.version).toBe('0.9.1');
    expect(hello.capabilities).toEqual(['state', 'wait']);
    sim.setCapabilities(['state']);
    const caps = await client.request('CAPS');
    expect(caps.capabilities).toEqual(['state']);
    const later = await connect(sim);
    expect(JSON.parse(await later.nextLine()).capabilities).toEqual(['state']);
    // A withdrawn capability takes its verbs with it.
    expect((await client.request('WAIT 0')).message).toBe('unknown command: WAIT 0');
    expect((await client.request('PLAYER Steve')).message).toBe('unknown command: PLAYER Steve');
  });

  it('can send one event line before the greeting (the broadcast race)', async () => {
    sim = await startSim({ autoTick: false, eventBeforeHello: true });
    const client = await connect(sim);
    const first = await client.next();
    expect(first).toMatchObject({ type: 'hello', event: true });
    expect(first.text).toBe(`mc-agent-interface server started port=${sim.port} dir=${sim.modDir}`);
    const second = await client.next();
    expect(second.type).toBe('hello');
    expect(second.event).toBeUndefined();
    sim.eventBeforeHello = { type: 'game', millis: 1, text: 'early' };
    const other = await connect(sim);
    expect(await other.next()).toEqual({ type: 'game', millis: 1, text: 'early', event: true });
  });

  it('ends lines with CRLF when asked (Windows hosts)', async () => {
    sim = await startSim({ autoTick: false, lineEnding: '\r\n' });
    const { client } = await LineClient.open(sim.port);
    clients.push(client);
    await client.request('PING');
    expect(client.raw).toMatch(/^\{"type":"hello"[^\n]*\}\r\n\{"type":"pong","t":\d+\}\r\n$/);
  });
});

describe('files', () => {
  it('writes port.txt without a newline and the startup hello event to events.jsonl', async () => {
    sim = await startSim({ autoTick: false });
    expect(sim.portFile).toBe(`${sim.dir}/mc-agent-server/port.txt`);
    expect(fs.readFileSync(sim.portFile, 'utf8')).toBe(String(sim.port));
    const events = fs
      .readFileSync(sim.eventsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events).toEqual([{ type: 'hello', millis: expect.any(Number), text: `mc-agent-interface server started port=${sim.port} dir=${sim.modDir}`, event: true }]);
  });

  it('appends every pushed event to events.jsonl in emission order', async () => {
    sim = await startSim({ autoTick: false });
    const { client } = await LineClient.open(sim.port);
    clients.push(client);
    await client.request('MARK one');
    sim.emit({ type: 'game', millis: 5, text: 'two' });
    await client.nextEvent('game');
    const types = fs
      .readFileSync(sim.eventsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).text);
    expect(types.slice(1)).toEqual(['one', 'two']);
  });

  it('uses a temp game dir when none is given and removes it on stop', async () => {
    const s = await startSim({ autoTick: false });
    expect(fs.existsSync(s.portFile)).toBe(true);
    await s.stop();
    expect(fs.existsSync(s.dir)).toBe(false);
  });
});

describe('request framing', () => {
  it('ignores empty lines, trims, ends lines at \\n, \\r or \\r\\n, and matches verbs in any case', async () => {
    sim = await startSim({ autoTick: false });
    const { client } = await LineClient.open(sim.port);
    clients.push(client);
    client.write('   \n\r\n  ping  \rEcHo Mixed Case\r\nPING');
    await until(() => sim!.received.length === 4); // the final PING waits for its line ending
    client.write('\n');
    expect((await client.next()).type).toBe('pong');
    expect(await client.next()).toMatchObject({ type: 'echo_ack', detail: 'Mixed Case' });
    expect((await client.next()).type).toBe('pong');
    expect(await client.drain(80)).toEqual([]);
    expect(sim.received).toEqual(['', '', 'ping', 'EcHo Mixed Case', 'PING']);
  });

  it('keeps a \\r\\n split across two TCP chunks as one line ending', async () => {
    sim = await startSim({ autoTick: false });
    const { client } = await LineClient.open(sim.port);
    clients.push(client);
    client.write('PING\r');
    await sleep(30); // two TCP chunks, not synchronisation: the test passes either way, this makes the split likely
    client.write('\nPING\n');
    await client.next();
    await client.next();
    expect(sim.received).toEqual(['PING', 'PING']);
  });

  it('decodes invalid UTF-8 as U+FFFD and answers', async () => {
    sim = await startSim({ autoTick: false });
    const { client } = await LineClient.open(sim.port);
    clients.push(client);
    client.write(Buffer.concat([Buffer.from('ECHO a'), Buffer.from([0xff]), Buffer.from('b\n')]));
    expect((await client.next()).detail).toBe('a\ufffdb');
  });

  it('never closes the connection on bad input', async () => {
    sim = await startSim({ autoTick: false });
    const { client } = await LineClient.open(sim.port);
    clients.push(client);
    expect((await client.request('{"type":"ping"}')).message).toBe('unknown command: {"type":"ping"}');
    expect((await client.request('FREEZE')).message).toBe('unknown command: FREEZE');
    expect((await client.request('PING')).type).toBe('pong');
  });
});

describe('connections', () => {
  it('broadcasts events to every client and counts connections', async () => {
    sim = await startSim({ autoTick: false });
    const a = (await LineClient.open(sim.port)).client;
    const b = (await LineClient.open(sim.port)).client;
    clients.push(a, b);
    expect(sim.connections).toBe(2);
    a.send('MARK both');
    expect((await a.next()).type).toBe('mark_ack');
    expect(await a.next()).toMatchObject({ type: 'mark', text: 'both', event: true });
    expect(await b.next()).toMatchObject({ type: 'mark', text: 'both', event: true });
    sim.hangUp();
    await until(() => a.closed && b.closed);
    expect(sim.connections).toBe(0);
  });

  it('drops a client that went away without disturbing the others', async () => {
    sim = await startSim({ autoTick: false });
    const gone = new net.Socket();
    await new Promise<void>((r) => gone.connect(sim!.port, '127.0.0.1', () => r()));
    const { client } = await LineClient.open(sim.port);
    clients.push(client);
    gone.destroy();
    await until(() => sim!.connections === 1);
    sim.emit({ type: 'game', millis: 1, text: 'still here' });
    expect((await client.nextEvent('game')).text).toBe('still here');
    expect(sim.connections).toBe(1);
  });
});
