/**
 * Scenarios: composites written as data in a JSON config, run by a real daemon over the
 * simulated mod; refused when the config loads with the step named, failing at run time with the
 * step, its tool and the cause.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: scenario steps are written with ${...} references
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../core/daemon/config/errors.js';
import { startTestHost, waitUntil, type TestHost } from '../../../../core/testing/index.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { startDaemonProcess } from '../../../support/daemon-process.js';
import { connectInMemory, errorOf, frontendFor, text } from '../../../support/mcp.js';

const hosts: TestHost[] = [];
const processes = new CliProcesses();
afterEach(async () => {
  for (const t of hosts.splice(0)) await t.close();
  await processes.stopAll();
  removeProjects();
});

function jsonConfig(scenarios: unknown[], extra: Record<string, unknown> = {}): string {
  return project({ install: false }).write('mcbridge.config.json', JSON.stringify({ ...extra, scenarios }, null, 2));
}

async function start(scenarios: unknown[], extra?: Record<string, unknown>): Promise<TestHost> {
  const t = await startTestHost({ config: jsonConfig(scenarios, extra) });
  hosts.push(t);
  return t;
}

async function refused(scenarios: unknown[]): Promise<ConfigError> {
  const file = jsonConfig(scenarios);
  try {
    hosts.push(await startTestHost({ config: file }));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected the scenarios to be refused');
}

const spawnTest = {
  name: 'spawn_test',
  description: 'Summon a mob at x y z, mark it with the player and tick, and check both happened.',
  input: {
    type: 'object',
    properties: {
      x: { type: 'integer', minimum: -1000, maximum: 1000 },
      y: { type: 'integer' },
      z: { type: 'integer' },
      mob: { type: 'string', enum: ['zombie', 'creeper'], default: 'zombie' },
      ticks: { type: 'integer', minimum: 1, maximum: 20, default: 2 },
    },
    required: ['x', 'y', 'z'],
  },
  steps: [
    { call: 'state', as: 'here' },
    { call: 'command', args: { command: 'summon ${mob} ${x} ${y} ${z}' }, as: 'spawn' },
    { call: 'wait', args: { ticks: '${ticks}' } },
    { call: 'mark', args: { text: 'spawned by ${steps.here.result.playerList[0].name} at tick ${steps.0.result.tick}' } },
    { wait_for: { match: { category: 'mark', text: '^spawned by' }, timeout_ms: 5000 }, as: 'seen' },
    { expect: { path: 'steps.spawn.result.output[0]', contains: 'Summoned new Zombie' } },
    { expect: { path: 'steps.seen.result.event.text', equals: 'spawned by Steve at tick ${steps.here.result.tick}' } },
  ],
};

describe('a scenario in a JSON config', () => {
  it('is a tool: listed with its input schema, CAPS and annotations derived from the tools it calls', async () => {
    const t = await start([spawnTest]);
    const tool = (await t.tools()).tools.find((x) => x.name === 'spawn_test');
    expect(tool).toMatchObject({ plugin: 'composites', available: true, annotations: { readOnly: false, destructive: true } });
    expect(new Set(tool?.uses)).toEqual(new Set(['state', 'command', 'wait', 'mark', 'wait_for']));
    expect(tool?.inputSchema).toMatchObject({
      type: 'object',
      properties: { x: { type: 'integer', minimum: -1000, maximum: 1000 }, mob: { enum: ['zombie', 'creeper'], default: 'zombie' } },
      required: ['x', 'y', 'z'],
      additionalProperties: false,
    });
    const missing = await t.callError('spawn_test', { x: 1, y: 2 });
    expect(missing.code).toBe('invalid_params');
    expect(missing.message).toMatch(/'z'/);
    expect((await t.callError('spawn_test', { x: 1, y: 2, z: 3, mob: 'pig' })).code).toBe('invalid_params');
    expect((await t.callError('spawn_test', { x: 1, y: 2, z: 3, extra: true })).code).toBe('invalid_params');
  });

  it('runs its steps with ${...} filled from the input and earlier results, typed when whole', async () => {
    const t = await start([spawnTest]);
    const result = await t.call('spawn_test', { x: 5, y: 64, z: -3 });
    expect(t.sim.received).toContain('CMD summon zombie 5 64 -3');
    const tick = result.steps[0].result.tick;
    expect(typeof tick).toBe('number');
    expect(t.sim.received).toContain(`MARK spawned by Steve at tick ${tick}`);
    expect(result).toMatchObject({
      passed: true,
      steps: [
        { step: 0, tool: 'state', as: 'here' },
        { step: 1, tool: 'command', as: 'spawn', result: { output: ['Summoned new Zombie'] } },
        { step: 2, tool: 'wait' },
        { step: 3, tool: 'mark' },
        { step: 4, tool: 'wait_for', as: 'seen', result: { matched: true } },
        { step: 5, expect: 'steps.spawn.result.output[0]', result: 'Summoned new Zombie' },
        { step: 6, expect: 'steps.seen.result.event.text', result: `spawned by Steve at tick ${tick}` },
      ],
    });
  });

  it('is an MCP tool: listed with its schema, called with structured results, failing as an error with the code', async () => {
    const t = await start([spawnTest]);
    const frontend = frontendFor(t.port);
    const mcp = await connectInMemory(frontend);
    try {
      const listed = (await mcp.client.listTools()).tools.find((x) => x.name === 'mc_spawn_test');
      expect(listed?.inputSchema).toMatchObject({ type: 'object', required: ['x', 'y', 'z'] });
      const ok = await mcp.client.callTool({ name: 'mc_spawn_test', arguments: { x: 7, y: 64, z: 7 } });
      expect(ok.isError).toBeFalsy();
      expect(JSON.parse(text(ok))).toMatchObject({ passed: true });
      expect(t.sim.received).toContain('CMD summon zombie 7 64 7');
      const bad = await mcp.client.callTool({ name: 'mc_spawn_test', arguments: { x: 7, y: 64, z: 7, mob: 'creeper' } });
      expect(bad.isError).toBe(true);
      expect(errorOf(bad)).toMatchObject({ code: 'scenario_failed', error: expect.stringMatching(/^scenario 'spawn_test' step 5 \(expect\)/) });
    } finally {
      await mcp.close();
      await frontend.close();
    }
  });

  it('a failing expect names the step with expected and actual', async () => {
    const t = await start([spawnTest]);
    const err = await t.callError('spawn_test', { x: 1, y: 64, z: 1, mob: 'creeper' });
    expect(err.code).toBe('scenario_failed');
    expect(err.message).toBe(`scenario 'spawn_test' step 5 (expect): expected steps.spawn.result.output[0] to contain "Summoned new Zombie", but it is "Summoned new Creeper"`);
    expect(err.details).toMatchObject({
      scenario: 'spawn_test',
      step: 5,
      tool: 'expect',
      cause: { reason: 'expectation', operator: 'contains', expected: 'Summoned new Zombie', actual: 'Summoned new Creeper', present: true },
    });
  });

  it("an inner call's refusal and a wait that matches nothing stop the scenario at that step", async () => {
    const t = await start([
      {
        name: 'wrong_type',
        description: 'Feeds a list where a number goes.',
        steps: [
          { call: 'command', args: { command: 'say hi' } },
          { call: 'wait', args: { ticks: '${steps.0.result.output}' } },
          { call: 'mark', args: { text: 'never' } },
        ],
      },
      {
        name: 'never_seen',
        description: 'Waits for a mark nobody sends.',
        steps: [{ wait_for: { match: { category: 'mark', text: 'nobody' }, timeout_ms: 150 } }],
      },
    ]);
    const inner = await t.callError('wrong_type');
    expect(inner.code).toBe('scenario_failed');
    expect(inner.message).toMatch(/^scenario 'wrong_type' step 1 \(wait\): \[invalid_params\] invalid params for 'wait'/);
    expect(inner.details).toMatchObject({ step: 1, tool: 'wait', cause: { code: 'invalid_params' } });
    expect(t.sim.received).not.toContain('MARK never');
    const waited = await t.callError('never_seen');
    expect(waited.message).toMatch(/^scenario 'never_seen' step 0 \(wait_for\): nothing matched within \d+ ms$/);
    expect(waited.details).toMatchObject({ step: 0, tool: 'wait_for', cause: { reason: 'no_match' } });
  });
});

describe('scenarios with each other, in time and on reload', () => {
  const echo = {
    name: 'echo',
    description: 'Says the text, and a literal $${...}.',
    input: { type: 'object', properties: { text: { type: 'string', maxLength: 100 }, at: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, required: ['text', 'at'] },
    steps: [{ call: 'command', args: { command: 'say ${text} $${text} ${at}' } }],
  };

  it('one scenario calls another with arguments from its own input and results', async () => {
    const t = await start([
      echo,
      {
        name: 'outer',
        description: 'Reads the tick, then has echo say it.',
        steps: [{ call: 'state' }, { call: 'echo', args: { text: 'tick ${steps.0.result.tick}', at: { n: '${steps.0.result.players}' } } }],
      },
    ]);
    const result = await t.call('outer');
    const tick = result.steps[0].result.tick as number;
    expect(t.sim.received).toContain(`CMD say tick ${tick} \${text} {"n":1}`);
    expect(result.steps[1]).toMatchObject({ tool: 'echo', result: { passed: true } });
    expect((await t.tools()).tools.find((x) => x.name === 'outer')?.uses).toEqual(['state', 'echo']);
  });

  it('a scenario that calls itself is refused as a cycle', async () => {
    const err = await refused([{ name: 'loop', description: 'd', steps: [{ call: 'loop' }] }]);
    expect(err.problems[0]).toMatchObject({ path: 'scenarios[0].uses', message: expect.stringMatching(/call each other in a cycle/) });
  });

  it('timeout_ms bounds the whole run: a step still running is cancelled and named', async () => {
    const t = await start([{ name: 'slow', description: 'd', timeout_ms: 300, steps: [{ call: 'state' }, { wait_for: { match: { category: 'mark', text: 'never' }, timeout_ms: 20000 } }] }]);
    const started = Date.now();
    const err = await t.callError('slow');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(err.code).toBe('scenario_failed');
    expect(err.message).toBe("scenario 'slow' step 1 (wait_for): the scenario ran past its timeout_ms (300 ms)");
    expect(err.details).toMatchObject({ step: 1, tool: 'wait_for', cause: { reason: 'timed_out', timeoutMs: 300 } });
  });

  it('reports progress per step, and a cancelled call answers cancelled without running the steps after', async () => {
    const t = await start([
      {
        name: 'waits',
        description: 'd',
        steps: [{ call: 'state' }, { wait_for: { match: { category: 'mark', text: 'never' }, timeout_ms: 20000 } }, { call: 'mark', args: { text: 'after the wait' } }],
      },
    ]);
    const controller = new AbortController();
    const messages: string[] = [];
    const call = t.callError('waits', {}, { signal: controller.signal, onProgress: (f) => messages.push(String(f.message)) });
    await waitUntil(() => messages.includes('step 1 (wait_for)'), 5000, 'the scenario to reach its wait');
    controller.abort();
    expect((await call).code).toBe('cancelled');
    expect(messages.slice(0, 2)).toEqual(['step 0 (state)', 'step 1 (wait_for)']);
    expect(t.sim.received).not.toContain('MARK after the wait');
  });

  it('a reloaded config brings its new scenarios and drops the old', async () => {
    const file = jsonConfig([echo]);
    const t = await startTestHost({ config: file });
    hosts.push(t);
    expect(await t.available()).toContain('echo');
    fs.writeFileSync(file, JSON.stringify({ scenarios: [{ ...echo, name: 'echo_two' }] }));
    await t.reload();
    const names = await t.available();
    expect(names).toContain('echo_two');
    expect(names).not.toContain('echo');
    expect(await t.call('echo_two', { text: 'again', at: { n: 2 } })).toMatchObject({ passed: true });
    expect(t.sim.received).toContain('CMD say again ${text} {"n":2}');
  });
});

describe('a scenario is checked when the config loads', () => {
  it('refuses an unknown tool, naming the step', async () => {
    const err = await refused([{ name: 'typo', description: 'd', steps: [{ call: 'state' }, { call: 'comand', args: { command: 'say hi' } }] }]);
    expect(err.code).toBe('invalid_params');
    expect(err.problems).toEqual([
      { path: 'scenarios[0].steps[1].call', reason: 'unknown_tool', message: "scenario 'typo' step 1 (comand): no loaded plugin, composite or scenario defines the tool 'comand'" },
    ]);
    expect(err.message).toContain("mcbridge.config.json: scenarios[0].steps[1].call: scenario 'typo' step 1 (comand)");
  });

  it('refuses unknown references: a missing input, a later or unnamed step', async () => {
    const err = await refused([
      {
        name: 'refs',
        description: 'd',
        input: { type: 'object', properties: { who: { type: 'string' } } },
        steps: [
          { call: 'command', args: { command: 'say ${whom}' } },
          { call: 'command', args: { command: 'say ${steps.2.result.output}' } },
          { call: 'command', args: { command: 'say ${steps.later.result}' } },
          { call: 'command', args: { command: 'say ${steps.0.output}' }, as: 'later' },
          { expect: { path: 'steps.nope.result', exists: true } },
        ],
      },
    ]);
    expect(err.problems.map((p) => [p.path, p.reason])).toEqual([
      ['scenarios[0].steps[0].args.command', 'unknown_reference'],
      ['scenarios[0].steps[1].args.command', 'unknown_reference'],
      ['scenarios[0].steps[2].args.command', 'unknown_reference'],
      ['scenarios[0].steps[3].args.command', 'unknown_reference'],
      ['scenarios[0].steps[4].expect.path', 'unknown_reference'],
    ]);
    expect(err.problems[0]?.message).toBe("scenario 'refs' step 0 (command): ${whom}: the input has no property 'whom' (it has: who)");
    expect(err.problems[1]?.message).toBe("scenario 'refs' step 1 (command): ${steps.2.result.output}: no earlier step is numbered '2' (earlier steps: 0)");
  });

  it('refuses a bad input schema, naming the keyword', async () => {
    const err = await refused([{ name: 'schema', description: 'd', input: { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } }, steps: [{ call: 'state' }] }]);
    expect(err.problems).toEqual([
      {
        path: 'scenarios[0].input.properties.name.pattern',
        reason: 'bad_schema',
        message: "scenario 'schema': input: the keyword 'pattern' is not supported for type string (supported: type, description, default, enum, minLength, maxLength)",
      },
    ]);
    const steps = (await refused([{ name: 'steps_input', description: 'd', input: { type: 'object', properties: { steps: { type: 'integer' } } }, steps: [{ call: 'state' }] }])).problems;
    expect(steps[0]).toMatchObject({ path: 'scenarios[0].input.properties.steps', reason: 'bad_schema' });
  });

  it("checks arguments against the tool's schema where no reference stands in for a value", async () => {
    const err = await refused([
      {
        name: 'args',
        description: 'd',
        input: { type: 'object', properties: { n: { type: 'integer' } } },
        steps: [{ call: 'wait', args: { ticks: '${n}' } }, { call: 'wait', args: { ticks: 'soon' } }, { wait_for: { match: { colour: 'red' } } }],
      },
    ]);
    expect(err.problems.map((p) => [p.path, p.reason])).toEqual([
      ['scenarios[0].steps[1].args', 'bad_args'],
      ['scenarios[0].steps[2].wait_for', 'bad_args'],
    ]);
    expect(err.problems[0]?.message).toMatch(/^scenario 'args' step 1 \(wait\): invalid arguments for 'wait': 'ticks': /);
  });

  it('refuses a huge or hostile scenario before looking at its steps', async () => {
    const many = Array.from({ length: 101 }, () => ({ call: 'state' }));
    const long = 'say '.padEnd(5000, 'a');
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = { a: deep };
    const err = await refused([
      { name: 'many', description: 'd', steps: many },
      { name: 'long', description: 'd', steps: [{ call: 'command', args: { command: long } }] },
      { name: 'deep', description: 'd', steps: [{ call: 'command', args: { command: deep } }] },
      { name: 'refs_galore', description: 'd', steps: [{ call: 'command', args: { command: '${a}'.repeat(40) } }] },
    ]);
    expect(err.problems.map((p) => [p.path, p.reason])).toEqual([
      ['scenarios[0].steps', 'bad_shape'],
      ['scenarios[1]', 'too_large'],
      ['scenarios[2]', 'too_large'],
      ['scenarios[3].steps[0].args.command', 'bad_reference'],
    ]);
    expect(err.problems[0]?.message).toBe("scenario 'many': at most 100 steps");
    const tooMany = await refused(Array.from({ length: 101 }, (_, i) => ({ name: `s${i}`, description: 'd', steps: [{ call: 'state' }] })));
    expect(tooMany.problems).toEqual([{ path: 'scenarios', reason: 'too_large', message: 'at most 100 scenarios (got 101)' }]);
  });

  it('refuses a name another tool has', async () => {
    const err = await refused([{ name: 'state', description: 'd', steps: [{ call: 'mark', args: { text: 'x' } }] }]);
    expect(err.problems[0]).toMatchObject({ path: 'scenarios[0].name', reason: 'name_taken' });
  });
});

describe("the docs' example", () => {
  const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../../docs/plugins.md'), 'utf8');
  const block = /```json scenario\n([\s\S]*?)```/.exec(doc)?.[1];

  it('passes in a test host', async () => {
    expect(block).toBeDefined();
    const config = JSON.parse(block!) as { scenarios: unknown[] };
    const t = await start(config.scenarios);
    expect(await t.call('spawn_check', { x: 0, y: 64, z: 0 })).toMatchObject({ passed: true });
  });

  it('`mcbridge config` lists it among the composites, saying which scenario it is', async () => {
    const file = project({ install: false }).write('mcbridge.config.json', block!);
    const shown = await runCli(['config'], { cwd: path.dirname(file) });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).composites).toEqual([
      expect.objectContaining({ name: 'spawn_check', scenario: 'scenarios[0]', uses: ['state', 'command', 'mark', 'wait_for'], annotations: expect.objectContaining({ destructive: true }) }),
    ]);
  });

  it('runs from `mcbridge call` against `mcbridge run --config`, and a failure exits 1 naming the step and the code', async () => {
    const file = project({ install: false }).write('mcbridge.config.json', block!);
    const daemon = await startDaemonProcess(processes, ['--sim'], undefined, file);
    const api = ['--api-port', String(daemon.port)];
    const passed = await runCli(['call', 'spawn_check', '{"x": 3, "y": 70, "z": 4}', ...api]);
    expect(passed.code, passed.stderr).toBe(0);
    expect(JSON.parse(passed.stdout)).toMatchObject({ passed: true, steps: [{ tool: 'state' }, { tool: 'command', result: { output: ['Summoned new Zombie'] } }, {}, {}, {}] });
    const failed = await runCli(['call', 'spawn_check', '{"x": 3, "y": 70, "z": 4, "mob": "husk"}', ...api]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /scenario 'spawn_check' step 4 \(expect\): expected steps\.spawn\.result\.output\[0\] to contain "Summoned new", but it is "Can't find element 'minecraft:husk'.*\[scenario_failed\]/,
    );
  });
});
