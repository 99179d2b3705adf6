/**
 * The `target` argument MCP adds on a daemon of several targets (core/frontends/mcp/targets.ts):
 * its enum, its description of what a call without it does, when it is required, and which
 * values a call may give. tests/core/frontends/mcp/targets.test.ts runs the SDK client on it.
 */
import { describe, expect, it } from 'vitest';
import type { TargetsManifest } from '../../../../core/api/target-views.js';
import { checkTargetArgument, manifestTargets, TARGETS_ENTRY, TARGETS_METHOD, TARGETS_TOOL, withTargetArgument } from '../../../../core/frontends/mcp/targets.js';
import { McbridgeError } from '../../../../core/host/errors.js';
import type { Manifest, ManifestTool } from '../../../../core/host/plugin-api.js';

function manifest(targets: Array<[string, boolean]> | undefined, defaultTarget: string | null = null): Manifest {
  const base = { revision: 1, vantage: 'server', capsSource: 'mod', connected: true, tools: [] } as unknown as Manifest;
  if (!targets) return base;
  return { ...base, targets: targets.map(([name, connected]) => ({ name, connected, default: name === defaultTarget })), defaultTarget } as TargetsManifest;
}

const tool = (targets?: string[]) => ({ name: 't', ...(targets ? { targets } : {}) }) as unknown as ManifestTool;
const schema = () => ({ type: 'object', properties: { x: { type: 'number' } }, required: ['x'] });
type Prop = { type: string; enum: string[]; description: string };
const targetOf = (s: Record<string, unknown>) => (s.properties as Record<string, Prop>).target!;

describe('manifestTargets', () => {
  it('names targets only for a daemon of two or more', () => {
    expect(manifestTargets(manifest(undefined))).toBeNull();
    expect(manifestTargets(manifest([['a', true]]))).toBeNull();
    expect(manifestTargets({ ...manifest(undefined), targets: 'a,b' } as unknown as Manifest)).toBeNull();
    expect(
      manifestTargets(
        manifest([
          ['a', true],
          ['b', false],
        ]),
      ),
    ).toEqual([
      { name: 'a', connected: true, default: false },
      { name: 'b', connected: false, default: false },
    ]);
  });
});

describe('withTargetArgument', () => {
  it('leaves the schema of a daemon of one as it is', () => {
    const s = schema();
    expect(withTargetArgument(s, tool(), manifest([['a', true]]), undefined)).toBe(s);
  });

  it("with a default: the serving names as the enum, what a call without one does; the tool's own keys kept", () => {
    const out = withTargetArgument(
      schema(),
      tool(['a', 'b']),
      manifest(
        [
          ['a', true],
          ['b', true],
        ],
        'a',
      ),
      undefined,
    );
    expect(out.required).toEqual(['x']);
    expect((out.properties as Record<string, unknown>).x).toEqual({ type: 'number' });
    expect(out.type).toBe('object');
    expect(targetOf(out)).toEqual({ type: 'string', enum: ['a', 'b'], description: "The game server (target) to run on: a, b. Without it the call goes to a (the daemon's default)." });
  });

  it('says when the default cannot serve the tool, which targets serve it of all, and which are down', () => {
    const out = withTargetArgument(
      schema(),
      tool(['b', 'c']),
      manifest(
        [
          ['a', true],
          ['b', false],
          ['c', true],
        ],
        'a',
      ),
      undefined,
    );
    expect(targetOf(out).enum).toEqual(['b', 'c']);
    expect(targetOf(out).description).toBe(
      "The game server (target) to run on: b, c (the targets that serve this tool now, of a, b, c). Without it the call goes to a (the daemon's default), which cannot serve this tool now: name one of b, c. Not connected now: b.",
    );
  });

  it('names every target that is down, in order', () => {
    const out = withTargetArgument(
      schema(),
      tool(),
      manifest(
        [
          ['a', false],
          ['b', true],
          ['c', false],
        ],
        'b',
      ),
      undefined,
    );
    expect(targetOf(out).description.endsWith('Not connected now: a, c.')).toBe(true);
  });

  it("this MCP server's --target wins over the daemon's default and makes the argument optional", () => {
    const out = withTargetArgument(
      schema(),
      tool(),
      manifest(
        [
          ['a', true],
          ['b', true],
        ],
        null,
      ),
      'b',
    );
    expect(targetOf(out).enum).toEqual(['a', 'b']);
    expect(targetOf(out).description).toBe("The game server (target) to run on: a, b. Without it the call goes to b (this MCP server's --target).");
    expect(out.required).toEqual(['x']);
  });

  it('with no default and no --target the argument is required, once, and says why', () => {
    const out = withTargetArgument(
      { ...schema(), required: ['x', 'target'] },
      tool([]),
      manifest(
        [
          ['a', true],
          ['b', true],
        ],
        null,
      ),
      undefined,
    );
    expect(out.required).toEqual(['x', 'target']);
    expect(targetOf(out).description).toBe('The game server (target) to run on: a, b. Give it: this daemon has no default target, so a call without `target` fails with target_required.');
    const bare = withTargetArgument(
      { type: 'object' },
      tool(),
      manifest(
        [
          ['a', true],
          ['b', true],
        ],
        null,
      ),
      undefined,
    );
    expect(bare.required).toEqual(['target']);
    expect(Object.keys(bare.properties as object)).toEqual(['target']);
  });

  it("a tool's own `target` (a label) is replaced by the router's, and the description says so", () => {
    const own = { type: 'object', properties: { target: { type: 'string', description: 'a label' } } };
    const out = withTargetArgument(
      own,
      tool(),
      manifest(
        [
          ['a', true],
          ['b', true],
        ],
        'a',
      ),
      undefined,
    );
    expect(targetOf(out).enum).toEqual(['a', 'b']);
    expect(targetOf(out).description.endsWith('On this daemon of several game servers `target` picks the server; it is no label.')).toBe(true);
  });
});

describe('checkTargetArgument', () => {
  const m = manifest(
    [
      ['a', true],
      ['b', true],
    ],
    'a',
  );

  it("lets a call with one name through (an unknown one is the daemon's to refuse), or none, or any on a daemon of one", () => {
    for (const args of [{ target: 'a' }, { target: 'nope' }, {}, { x: 1 }]) expect(() => checkTargetArgument(m, args)).not.toThrow();
    for (const target of ['*', ['a', 'b'], 3]) expect(() => checkTargetArgument(manifest([['a', true]]), { target })).not.toThrow();
  });

  it("refuses '*', a list, or another type with invalid_params, naming the targets and what to do", () => {
    for (const [target, given] of [
      ['*', '"*"'],
      [['a', 'b'], '["a","b"]'],
      [7, '7'],
      [null, 'null'],
      [undefined, 'undefined'],
      [{ name: 'a' }, '{"name":"a"}'],
    ] as const) {
      let err: unknown;
      try {
        checkTargetArgument(m, { target });
      } catch (e) {
        err = e;
      }
      expect(err, String(given)).toBeInstanceOf(McbridgeError);
      const coded = err as McbridgeError;
      expect(coded.code).toBe('invalid_params');
      expect(coded.message).toBe(`"target" must be one game server's name on MCP, one of a, b; got ${given}. To reach several, call the tool once per target`);
      expect(coded.details).toEqual({ targets: ['a', 'b'] });
    }
  });

  it('cuts a long value in its message to 60 characters', () => {
    try {
      checkTargetArgument(m, { target: ['x'.repeat(200)] });
      expect.unreachable();
    } catch (e) {
      const message = (e as McbridgeError).message;
      expect(message).toContain(`got ${`["${'x'.repeat(200)}"]`.slice(0, 60)}. To reach`);
    }
  });
});

describe('mc_targets', () => {
  it('is the targets method, read-only, with an output schema the entry shares', () => {
    expect(TARGETS_METHOD).toBe('targets');
    expect(TARGETS_TOOL.name).toBe('mc_targets');
    expect(TARGETS_TOOL.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(TARGETS_ENTRY).toEqual({ name: 'targets', outputSchema: TARGETS_TOOL.outputSchema });
    expect(TARGETS_TOOL.outputSchema?.required).toEqual(['targets', 'default', 'count']);
  });
});
