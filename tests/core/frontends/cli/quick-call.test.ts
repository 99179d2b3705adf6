/**
 * The plain `call` form runs without commander (quick-call.ts); every other command line goes to
 * the full program, so that help, errors and exit codes stay the program's own.
 */
import { describe, expect, it } from 'vitest';
import { quickCall } from '../../../../core/frontends/cli/quick-call.js';

describe('quickCall', () => {
  it('reads the plain form: method, params, the global flags in either spelling, --timeout and --progress', () => {
    expect(quickCall(['call', 'state'])).toEqual({ method: 'state', params: undefined, progress: false, given: {} });
    expect(quickCall(['--api-port', '9000', 'call', 'entities', '{"radius": 8}', '--api-host=127.0.0.2', '--timeout', '2.5', '--progress', '--log-level', 'warn']))
      .toEqual({ method: 'entities', params: '{"radius": 8}', progress: true, given: { apiPort: 9000, apiHost: '127.0.0.2', logLevel: 'warn' }, timeout: 2.5 });
    expect(quickCall(['call', 'state', '--api-token', 's3cret-token-0123456'])?.given).toEqual({ apiToken: 's3cret-token-0123456' });
  });

  it.each([
    [['call']],
    [['call', 'state', '{}', 'extra']],
    [['call', '--help']],
    [['call', 'state', '-h']],
    [['--version']],
    [['tools']],
    [['help', 'call']],
    [['call', 'state', '--no-such-flag']],
    [['call', 'state', '--api-port', 'x8765']],
    [['call', 'state', '--api-port', '1', '--api-port', '2']],
    [['call', 'state', '--api-token', 'short']],
    [['call', 'state', '--log-level', 'loud']],
    [['call', 'state', '--timeout', '0']],
    [['call', 'state', '--timeout']],
    [['call', 'state', '--api-host', '--progress']],
    [['--progress', 'call', 'state']],
    [['call', 'state', '--progress', '--progress']],
    [['call', 'state', '--', '{}']],
  ])('leaves %j to the full program', (args) => {
    expect(quickCall(args)).toBeNull();
  });
});
