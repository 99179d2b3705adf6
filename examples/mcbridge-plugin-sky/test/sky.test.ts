/**
 * The plugin tested the way its users run it: on the simulated mod, over real sockets, with the
 * testkit from `mcbridge/testing`. Nothing here reaches into mcbridge's internals.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_CAPABILITIES, startTestHost, type TestHost } from 'mcbridge/testing';
import sky, { phaseOf } from '../src/index.js';

const hosts: TestHost[] = [];
/** A test host whose game clock stands still (autoTick: false), so times compare exactly. */
async function start(options: Parameters<typeof startTestHost>[0] = {}): Promise<TestHost> {
  const t = await startTestHost({ ...options, sim: { autoTick: false, ...options.sim } });
  hosts.push(t);
  return t;
}

afterEach(async () => {
  for (const t of hosts.splice(0)) await t.close();
});

const SKY_TOOLS = ['sky_set_time', 'sky_time', 'sky_weather'];

describe('mcbridge-plugin-sky', () => {
  it('reads the time of day from the game', async () => {
    const t = await start({ plugins: [sky] });
    t.sim.world.dayTime = 24000 * 3 + 13500;
    expect(await t.call('sky_time')).toEqual({ daytime: 13500, day: 3, phase: 'night' });
  });

  it('sets the time and reports what the game says afterwards', async () => {
    const t = await start({ plugins: [sky] });
    const result = await t.call('sky_set_time', { to: 'noon' });
    expect(result).toMatchObject({ requested: { to: 'noon', ticks: 6000 }, verified: { daytime: 6000, phase: 'day', matches: true } });
    expect(t.sim.world.dayTime % 24000).toBe(6000);
    expect(t.sim.received).toContain('CMD time set 6000');
  });

  it('uses its options: the default weather duration', async () => {
    const t = await start({ plugins: [[sky, { defaultWeatherSeconds: 45 }]] });
    const result = await t.call('sky_weather', { kind: 'thunder' });
    expect(result).toMatchObject({ requested: { kind: 'thunder', seconds: 45 }, feedback: ['Set the weather to rain & thunder'], verified: null });
    expect(t.sim.world.weather).toBe('thunder');
    expect(t.sim.received).toContain('CMD weather thunder 45s');
  });

  it('refuses options its schema rejects, naming the field', async () => {
    await expect(startTestHost({ plugins: [[sky, { defaultWeatherSeconds: 0 }]] })).rejects.toThrow(/plugins\[0\]\[1\].*options of plugin 'mcbridge-plugin-sky' are invalid: 'defaultWeatherSeconds'/);
  });

  it('validates arguments before anything reaches the game', async () => {
    const t = await start({ plugins: [sky] });
    const before = t.sim.received.length;
    const error = await t.callError('sky_set_time', { to: 'teatime' });
    expect(error.code).toBe('invalid_params');
    expect(t.sim.received.length).toBe(before);
  });

  it('is visible only while the mod advertises the command capability', async () => {
    const t = await start({ plugins: [sky], sim: { capabilities: SERVER_CAPABILITIES.filter((c) => c !== 'command') } });
    const hidden = await t.hidden();
    for (const name of SKY_TOOLS) expect(hidden[name]).toMatch(/does not advertise 'command'/);
    expect((await t.callError('sky_time')).code).toBe('unsupported_capability');

    await t.setCapabilities(SERVER_CAPABILITIES);
    expect(await t.available()).toEqual(expect.arrayContaining(SKY_TOOLS));
    expect(await t.call('sky_time')).toMatchObject({ phase: expect.any(String) });
  });

  it('keeps only sky_time in read-only mode', async () => {
    const t = await start({ plugins: [sky], readOnly: true });
    const available = await t.available();
    expect(available).toContain('sky_time');
    expect(available).not.toContain('sky_set_time');
    expect(available).not.toContain('sky_weather');
    expect((await t.callError('sky_weather', { kind: 'rain' })).code).toBe('tool_disabled');
  });

  it('names the phases like the sky draws them', () => {
    expect([0, 11999, 12000, 12999, 13000, 22999, 23000, 23999].map(phaseOf)).toEqual(['day', 'day', 'sunset', 'sunset', 'night', 'night', 'sunrise', 'sunrise']);
  });
});
