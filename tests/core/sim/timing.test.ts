import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type SimOptions, type SimulatedMod } from '../../../core/sim/index.js';
import { LineClient, until } from '../../support/line-client.js';

let sim: SimulatedMod | undefined;
let client: LineClient | undefined;

afterEach(async () => {
  client?.close();
  await sim?.stop();
  sim = undefined;
});

async function open(options: SimOptions): Promise<LineClient> {
  sim = await startSim(options);
  client = (await LineClient.open(sim.port)).client;
  return client;
}

describe('reply overtaking (replyDelayMs)', () => {
  it('lets a reader-thread reply overtake a delayed server-thread reply', async () => {
    const c = await open({ autoTick: false, replyDelayMs: { STATE: 150 } });
    c.send('STATE', 'PING');
    expect((await c.next()).type).toBe('pong');
    expect((await c.next()).type).toBe('state');
  });

  it('without a delay, replies come in request order', async () => {
    const c = await open({ autoTick: false });
    c.send('STATE', 'PING', 'ENTITIES', 'ECHO x');
    expect([(await c.next()).type, (await c.next()).type, (await c.next()).type, (await c.next()).type]).toEqual(['state', 'pong', 'entities', 'echo_ack']);
  });

  it('keeps server-thread replies FIFO behind a delayed one', async () => {
    const c = await open({ autoTick: false, replyDelayMs: { state_get: 100 } });
    c.send('STATE_GET', 'ENTITIES', 'CAPS', 'CMD time query gametime');
    const order: string[] = [];
    for (let i = 0; i < 4; i++) order.push((await c.nextNonEvent()).type);
    expect(order).toEqual(['capabilities', 'state', 'entities', 'cmd_ack']);
  });

  it('a number delays every server-thread verb; the knob can change at runtime', async () => {
    const c = await open({ autoTick: false, replyDelayMs: 80 });
    c.send('PLAYER Steve', 'MARK m');
    expect((await c.next()).type).toBe('mark_ack');
    sim!.replyDelayMs = 0;
    const rest = [(await c.next()).type, (await c.next()).type];
    expect(rest).toEqual(['mark', 'player']);
  });
});

describe('silentVerbs', () => {
  it('reads but never answers the listed verbs', async () => {
    const c = await open({ autoTick: false, silentVerbs: ['state'] });
    c.send('STATE');
    expect((await c.request('PING')).type).toBe('pong');
    expect(await c.drain(80)).toEqual([]);
    expect(sim!.received).toEqual(['STATE', 'PING']);
  });
});

describe('WAIT', () => {
  it('answers after n tick ends, detail always ticks=0, several at once', async () => {
    const c = await open({ autoTick: false });
    c.send('WAIT 3', 'WAIT 1', 'WAIT 2');
    await until(() => sim!.received.length === 3);
    expect(c.lines.length).toBe(1); // only the greeting
    sim!.tick();
    expect(await c.next()).toEqual({ type: 'wait_ack', millis: expect.any(Number), detail: 'ticks=0' });
    sim!.tick();
    await c.next();
    expect(await c.drain(30)).toEqual([]);
    sim!.tick();
    expect((await c.next()).detail).toBe('ticks=0');
  });

  it('keeps counting tick ends while the game is frozen', async () => {
    const c = await open({ autoTick: false });
    await c.request('CMD tick freeze');
    c.send('WAIT 2');
    await until(() => sim!.received.includes('WAIT 2'));
    sim!.tick(2);
    expect((await c.nextNonEvent()).type).toBe('wait_ack');
  });

  it('is dropped without a reply when the server stops', async () => {
    const c = await open({ autoTick: false });
    c.send('WAIT 5');
    await until(() => sim!.received.includes('WAIT 5'));
    await sim!.restart();
    sim!.tick(10);
    await until(() => c.closed);
    expect(c.lines).toHaveLength(1);
  });

  it('runs on the real 20 TPS timer by default', async () => {
    const c = await open({});
    const started = Date.now();
    expect((await c.request('WAIT 4')).type).toBe('wait_ack');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sim!.world.tick).toBeGreaterThanOrEqual(4);
  });
});

describe('tick freeze, step and rate', () => {
  it('freeze stops world time, the server tick counter keeps counting, step advances n', async () => {
    const c = await open({ autoTick: false });
    const gametime = async () => (await c.request('CMD time query gametime')).output[0];
    expect(await gametime()).toBe('The time is 1000');
    sim!.tick(2);
    expect(await gametime()).toBe('The time is 1002');
    expect((await c.request('CMD tick freeze')).output).toEqual(['The game is frozen']);
    sim!.tick(5);
    expect(await gametime()).toBe('The time is 1002');
    expect((await c.request('STATE')).tick).toBe(7);
    expect((await c.request('CMD tick step 3')).output).toEqual(['Stepping 3 tick(s)']);
    sim!.tick(10);
    expect(await gametime()).toBe('The time is 1005');
    expect((await c.request('CMD tick query')).output[0]).toBe('The game is frozen');
    expect((await c.request('CMD tick unfreeze')).output).toEqual(['The game is running normally']);
    expect((await c.request('CMD tick step')).output).toEqual(['Unable to step the game - the game must be frozen first']);
  });

  it('tick rate changes the timer speed', async () => {
    const c = await open({ tps: 20 });
    expect((await c.request('CMD tick rate 100')).output).toEqual(['Set the target tick rate to 100.0 per second']);
    // Measured against the sim's own ticks, not the wall clock: at 100 TPS the timer fires five
    // times for each 50 ms tick it would have taken at 20 TPS.
    expect(sim!.world.tickRate).toBe(100);
    await c.request('WAIT 20');
    expect((await c.request('CMD tick rate 0.5')).output).toEqual(['Float must not be less than 1.0, found 0.5', 'tick rate 0.5<--[HERE]']);
  });
});
