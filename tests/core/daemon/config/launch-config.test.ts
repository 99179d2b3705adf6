/** A target's `launch` and `logFile` in config (issue 36, item 1): checked, with paths resolved. */
import { describe, expect, it } from 'vitest';
import { durationMs } from '../../../../core/host/launch-schema.js';
import { targetSpecs, targetsSchema } from '../../../../core/daemon/config/targets.js';

const problems = (targets: unknown) => {
  const r = targetsSchema.safeParse(targets);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('launch in a target', () => {
  it('a command with its folder, a sim, and durations in seconds or text', () => {
    expect(problems({ lab: { launch: { command: ['java', '-jar', 'server.jar', 'nogui'], cwd: 'servers/lab', stopTimeout: '30s', restart: 'on-crash' } } })).toEqual([]);
    expect(problems({ lab: { launch: { sim: true, idleStop: '5m', world: { template: 'templates/clean' } } } })).toEqual([]);
    expect([durationMs(2), durationMs('500ms'), durationMs('1.5m'), durationMs('1h'), durationMs('5 min')]).toEqual([2000, 500, 90_000, 3_600_000, Number.NaN]);
  });

  it('refuses what cannot be run, naming the place', () => {
    expect(problems({ lab: { launch: { command: [], cwd: 'x' } } }).join('\n')).toMatch(/lab\.launch/);
    expect(problems({ lab: { launch: { command: ['java'], cwd: 'x', restart: 'always' } } }).join('\n')).toMatch(/lab\.launch/);
    expect(problems({ lab: { launch: { sim: true, idleStop: 'soon' } } }).join('\n')).toMatch(/duration/);
    expect(problems({ lab: { launch: { sim: true, idleStop: 0 } } }).join('\n')).toMatch(/above 0/);
    expect(problems({ lab: { launch: { command: 'java -jar server.jar', cwd: 'x' } } }).length).toBeGreaterThan(0);
    expect(problems({ lab: { launch: { sim: true }, sim: true } }).join('\n')).toMatch(/not both/);
    // `sim: false` is a command of its own: a control link to it is the user's to give.
    expect(problems({ lab: { launch: { sim: true }, transport: 'control' } }).join('\n')).toMatch(/legacy protocol/);
    expect(problems({ lab: { launch: { sim: false, command: ['java'], cwd: 'x' }, transport: 'control', address: '127.0.0.1:1', pin: 'sha256:00', tokenEnv: 'T' } }).join('\n')).not.toMatch(
      /legacy protocol/,
    );
    expect(problems({ lab: { launch: { command: ['x'], cwd: 'x', shell: true } } }).length).toBeGreaterThan(0);
    expect(problems({ lab: { launch: { command: ['x'], cwd: 'x', env: { 'BAD NAME': '1' } } } }).join('\n')).toMatch(/lab\.launch\.env/);
  });

  it("a launched server's folder is where its link looks, and paths resolve from the config's folder", () => {
    const [lab] = targetSpecs({ lab: { launch: { command: ['java'], cwd: 'servers/lab', world: { template: 'templates/clean' } }, logFile: 'servers/lab/logs/latest.log' } }, '/cfg');
    expect(lab!.link).toMatchObject({ serverDir: '/cfg/servers/lab' });
    expect(lab!.options).toEqual({
      launch: { command: ['java'], cwd: '/cfg/servers/lab', world: { template: '/cfg/templates/clean' } },
      logFile: '/cfg/servers/lab/logs/latest.log',
    });
    // A serverDir of its own wins; a fork source is a snapshot name, not a path.
    const [other] = targetSpecs({ o: { serverDir: 'elsewhere', launch: { sim: true, world: { fork: 'before' } } } }, '/cfg');
    expect(other!.link).toMatchObject({ serverDir: '/cfg/elsewhere' });
    expect(other!.options?.launch?.world).toEqual({ fork: 'before' });
  });
});
