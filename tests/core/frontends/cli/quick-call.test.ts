/**
 * The plain `call` and `mcp` forms run without commander (quick-call.ts); every other command line goes to
 * the full program, so that help, errors and exit codes stay the program's own.
 */
import { describe, expect, it } from 'vitest';
import { PLAIN_MCP_OPTIONS } from '../../../../core/frontends/cli/mcp-options.js';
import { buildProgram } from '../../../../core/frontends/cli/program.js';
import { quickCall, quickMcp } from '../../../../core/frontends/cli/quick-call.js';

describe('quickCall', () => {
  it('reads the plain form: method, params, the global flags in either spelling, --timeout and --progress', () => {
    expect(quickCall(['call', 'state'])).toEqual({ method: 'state', params: undefined, progress: false, given: {} });
    expect(quickCall(['--api-port', '9000', 'call', 'entities', '{"radius": 8}', '--api-host=127.0.0.2', '--timeout', '2.5', '--progress', '--log-level', 'warn'])).toEqual({
      method: 'entities',
      params: '{"radius": 8}',
      progress: true,
      given: { apiPort: 9000, apiHost: '127.0.0.2', logLevel: 'warn' },
      timeout: 2.5,
    });
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

describe('quickMcp', () => {
  it('reads plain `mcp`, as MCP clients start it: the global flags and nothing else', () => {
    expect(quickMcp(['mcp'])).toEqual({});
    expect(quickMcp(['mcp', '--api-port', '9000', '--log-level=warn'])).toEqual({ apiPort: 9000, logLevel: 'warn' });
  });

  it.each([
    [['mcp', '--transport', 'http']],
    [['mcp', '--embedded']],
    [['mcp', '--help']],
    [['mcp', 'extra']],
    [['mcp', '--timeout', '5']],
    [['mcp', '--progress']],
    [['mcp', '--api-port', 'x']],
    [['call', 'state']],
  ])('leaves %j to the full program', (args) => {
    expect(quickMcp(args)).toBeNull();
  });

  it('runs with what the program gives `mcp` when none of its own options is given', () => {
    // Commander fills an option's default when the option is defined; a new default in the
    // program that the quick path lacks would show here.
    const mcp = buildProgram().commands.find((c) => c.name() === 'mcp')!;
    expect(mcp.opts()).toEqual({ ...PLAIN_MCP_OPTIONS });
  });
});
