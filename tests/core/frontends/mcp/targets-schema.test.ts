/**
 * The `target` argument MCP gives every tool on a daemon of several targets
 * (core/frontends/mcp/targets.ts), from manifests the test writes: the enum, the words, when it
 * is required, and the MCP-side check of what a client sends.
 */
import { describe, expect, it } from 'vitest';
import { checkTargetArgument, manifestTargets, TARGETS_ENTRY, TARGETS_TOOL, withTargetArgument } from '../../../../core/frontends/mcp/targets.js';
import type { Manifest, ManifestTool } from '../../../../core/host/plugin-api.js';
import { caught } from '../../../support/errors.js';

const tool = (name: string, targets?: string[]): ManifestTool =>
  ({ name, description: name, inputSchema: {}, annotations: {}, requires: [], plugin: 'p', available: true, ...(targets ? { targets } : {}) }) as ManifestTool;

function manifest(defaultTarget: string | null, connected: Record<string, boolean> = { live: true, lab: true }): Manifest {
  return {
    revision: 1,
    vantage: 'server',
    capsSource: 'mod',
    connected: true,
    tools: [],
    targets: Object.entries(connected).map(([name, up]) => ({ name, default: name === defaultTarget, connected: up })),
    defaultTarget,
  } as Manifest;
}

const single: Manifest = { revision: 1, vantage: 'server', capsSource: 'mod', connected: true, tools: [] };

type Schema = { properties: Record<string, unknown> & { target: { type: string; enum: string[]; description: string } }; required?: string[] };
const arg = (schema: Record<string, unknown>) => (schema as Schema).properties.target;

describe('manifestTargets', () => {
  it('names the targets of a daemon of two or more, and none for one', () => {
    expect(manifestTargets(manifest('lab'))).toEqual([
      { name: 'live', default: false, connected: true },
      { name: 'lab', default: true, connected: true },
    ]);
    expect(manifestTargets(single)).toBeNull();
    expect(manifestTargets({ ...single, targets: [{ name: 'only', default: true, connected: true }] } as Manifest)).toBeNull();
    expect(manifestTargets({ ...single, targets: 'live,lab' } as unknown as Manifest)).toBeNull();
  });
});

describe('withTargetArgument', () => {
  it('leaves a schema alone on a daemon of one target', () => {
    const schema = { type: 'object', properties: { x: {} } };
    expect(withTargetArgument(schema, tool('a'), single, undefined)).toBe(schema);
  });

  it('adds a string enum of the serving targets beside the tool’s own properties, the schema otherwise as it was', () => {
    const schema = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false };
    const out = withTargetArgument(schema, tool('a', ['live', 'lab']), manifest('lab'), undefined);
    expect(out).toMatchObject({ type: 'object', required: ['x'], additionalProperties: false });
    expect((out as Schema).properties.x).toEqual({ type: 'number' });
    expect(arg(out)).toMatchObject({ type: 'string', enum: ['live', 'lab'] });
    expect(arg(out).description).toBe("The game server (target) to run on: live, lab. Without it the call goes to lab (the daemon's default).");
    expect(schema.properties).toEqual({ x: { type: 'number' } });
  });

  it('a tool served by some targets names those, of all; one whose entry names none lists every target', () => {
    const some = arg(withTargetArgument({ type: 'object' }, tool('a', ['lab']), manifest('lab'), undefined));
    expect(some.enum).toEqual(['lab']);
    expect(some.description).toBe("The game server (target) to run on: lab (the targets that serve this tool now, of live, lab). Without it the call goes to lab (the daemon's default).");
    expect(arg(withTargetArgument({ type: 'object' }, tool('a', []), manifest('lab'), undefined)).enum).toEqual(['live', 'lab']);
    expect(arg(withTargetArgument({ type: 'object' }, tool('a'), manifest('lab'), undefined)).enum).toEqual(['live', 'lab']);
  });

  it('with this server’s --target the words name it over the default, and a chosen target that cannot serve the tool', () => {
    const pinned = arg(withTargetArgument({ type: 'object' }, tool('a', ['live', 'lab']), manifest('lab'), 'live')).description;
    expect(pinned).toBe("The game server (target) to run on: live, lab. Without it the call goes to live (this MCP server's --target).");
    const cannot = arg(withTargetArgument({ type: 'object' }, tool('a', ['live']), manifest(null), 'lab')).description;
    expect(cannot).toContain("Without it the call goes to lab (this MCP server's --target), which cannot serve this tool now: name one of live.");
  });

  it('says which serving targets have no mod connected now', () => {
    const d = arg(withTargetArgument({ type: 'object' }, tool('a', ['live', 'lab']), manifest('lab', { live: false, lab: true, dev: false }), undefined)).description;
    expect(d).toMatch(/ Not connected now: live\.$/);
    const all = arg(withTargetArgument({ type: 'object' }, tool('a'), manifest('lab', { live: false, lab: false }), undefined)).description;
    expect(all).toMatch(/ Not connected now: live, lab\.$/);
  });

  it('a tool with a `target` of its own gets the router’s, and is told it is no label', () => {
    const schema = { type: 'object', properties: { target: { type: 'string', description: 'a label' } } };
    const d = arg(withTargetArgument(schema, tool('restore', ['live', 'lab']), manifest('lab'), undefined));
    expect(d.enum).toEqual(['live', 'lab']);
    expect(d.description).toMatch(/\(the daemon's default\)\. On this daemon of several game servers `target` picks the server; it is no label\.$/);
    expect(arg(withTargetArgument({ type: 'object', properties: 'odd' }, tool('a', ['live', 'lab']), manifest('lab'), undefined)).description).not.toContain('no label');
  });

  it('with no default and no --target, `target` is required, once, and the words say a call without it fails', () => {
    const out = withTargetArgument({ type: 'object', properties: { target: {} }, required: ['x', 'target'] }, tool('a', ['live', 'lab']), manifest(null), undefined);
    expect((out as Schema).required).toEqual(['x', 'target']);
    expect(arg(out).description).toBe(
      'The game server (target) to run on: live, lab. Give it: this daemon has no default target, so a call without `target` fails with target_required. On this daemon of several game servers `target` picks the server; it is no label.',
    );
    expect((withTargetArgument({ type: 'object' }, tool('a'), manifest(null), undefined) as Schema).required).toEqual(['target']);
    // A --target or a default: not required, and the tool's own list untouched.
    expect((withTargetArgument({ type: 'object' }, tool('a'), manifest(null), 'lab') as Schema).required).toBeUndefined();
    expect((withTargetArgument({ type: 'object', required: ['x'] }, tool('a'), manifest('live'), undefined) as Schema).required).toEqual(['x']);
  });
});

describe('checkTargetArgument', () => {
  it('lets through one name (the daemon refuses an unknown one), no target, and anything on a daemon of one', () => {
    expect(() => checkTargetArgument(manifest('lab'), { target: 'lab' })).not.toThrow();
    expect(() => checkTargetArgument(manifest('lab'), { target: 'staging' })).not.toThrow();
    expect(() => checkTargetArgument(manifest('lab'), {})).not.toThrow();
    expect(() => checkTargetArgument(single, { target: ['a', 'b'] })).not.toThrow();
  });

  it('refuses `*`, a list or a non-string, naming the targets and what came', () => {
    const star = caught(() => checkTargetArgument(manifest('lab'), { target: '*' }));
    expect(star.code).toBe('invalid_params');
    expect(star.message).toBe('"target" must be one game server\'s name on MCP, one of live, lab; got "*". To reach several, call the tool once per target');
    expect(star.details).toEqual({ targets: ['live', 'lab'] });
    expect(caught(() => checkTargetArgument(manifest('lab'), { target: ['live', 'lab'] })).message).toContain('got ["live","lab"].');
    expect(caught(() => checkTargetArgument(manifest('lab'), { target: 3 })).message).toContain('got 3.');
    expect(caught(() => checkTargetArgument(manifest('lab'), { target: undefined })).message).toContain('got undefined.');
    // What came is cut at 60 characters.
    const long = caught(() => checkTargetArgument(manifest('lab'), { target: ['x'.repeat(100)] })).message;
    expect(long).toContain(`got ${JSON.stringify(['x'.repeat(100)]).slice(0, 60)}. To reach`);
  });
});

describe('mc_targets', () => {
  it('takes no arguments, is read-only, and is called as the `targets` method with its output schema', () => {
    expect(TARGETS_TOOL.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(TARGETS_TOOL.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(TARGETS_ENTRY).toEqual({ name: 'targets', outputSchema: TARGETS_TOOL.outputSchema });
  });
});
