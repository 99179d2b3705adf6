import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McbridgeError } from '../../../../core/host/errors.js';
import { CAPABILITY_ORIGINS, DEFAULT_CAPS, normalizeCaps, type Caps } from '../../../../core/host/link/caps.js';
import { definePlugin, defineTool, RESERVED_NAMES, validatePlugin } from '../../../../core/host/define.js';
import { policyVerdict, type PolicySubject } from '../../../../core/host/registry/policy.js';

const subject = (name: string): PolicySubject => ({ name, plugin: 'p', annotations: {}, requires: [] });
import { ToolRegistry, unsupportedMessage, type CapsView } from '../../../../core/host/registry/registry.js';
import { HOST_API_VERSION, type Plugin, type ToolSpec } from '../../../../core/host/plugin-api.js';
import { caught } from '../../../support/errors.js';

function tool(name: string, extra: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name,
    description: `the ${name} tool`,
    input: z.object({}),
    run: async () => ({ ok: true }),
    ...extra,
  };
}

function plugin(name: string, tools: ToolSpec[], extra: Partial<Plugin> = {}): Plugin {
  return { name, version: '1.0.0', apiVersion: HOST_API_VERSION, tools, ...extra };
}

function view(caps: Caps | null, extra: Partial<CapsView> = {}): CapsView {
  return { caps, source: 'mod', vantage: 'server', instance: 'server', ...extra };
}

// ---- caps ------------------------------------------------------------------------

describe('validatePlugin', () => {
  it('accepts a well-formed plugin and returns it', () => {
    const p = definePlugin(plugin('good', [defineTool({ name: 'state_x', description: 'd', input: z.object({}), run: async () => 1 })]));
    expect(validatePlugin(p, 'config')).toBe(p);
  });

  it('accepts a scoped package name and a plugin without tools', () => {
    expect(() => validatePlugin(plugin('@acme/mc-tools', []), 'npm')).not.toThrow();
    expect(() => validatePlugin({ name: 'bare', version: '0.1.0', apiVersion: 1 }, 'npm')).not.toThrow();
  });

  it('refuses a bad tool name, naming the plugin, the field and the tool', () => {
    const err = caught(() => validatePlugin(plugin('mine', [tool('Bad-Name')]), 'config'));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toContain("plugin 'mine'");
    expect(err.message).toContain('tools[0].name');
    expect(err.message).toContain("'Bad-Name'");
    expect(err.message).toContain('^[a-z][a-z0-9_]{0,47}$');
  });

  it('refuses MCP defaults that name no parameter or that the parameter does not accept', () => {
    const input = z.object({ summary: z.boolean().optional() });
    expect(() => validatePlugin(plugin('mine', [tool('t', { input, mcpDefaults: { summary: true } })]), 'config')).not.toThrow();
    expect(() => validatePlugin(plugin('mine', [tool('t', { input, mcpDefaults: { sumary: true } })]), 'config')).toThrow(
      /tools\[0\]\.mcpDefaults\.sumary \(tool 't'\) names no parameter of the tool \(parameters: summary\)/,
    );
    expect(() => validatePlugin(plugin('mine', [tool('t', { input, mcpDefaults: { summary: 'yes' } })]), 'config')).toThrow(/mcpDefaults\.summary .*is not a value the parameter 'summary' accepts/);
  });

  it('refuses a tool name that is too long', () => {
    expect(() => validatePlugin(plugin('mine', [tool('a'.repeat(49))]), 'config')).toThrow(/tools\[0\]\.name/);
    expect(() => validatePlugin(plugin('mine', [tool('a'.repeat(48))]), 'config')).not.toThrow();
  });

  it('refuses a missing or blank description', () => {
    const { description: _drop, ...noDescription } = tool('ok_tool');
    const err = caught(() => validatePlugin(plugin('mine', [noDescription as ToolSpec]), 'config'));
    expect(err.message).toContain("plugin 'mine'");
    expect(err.message).toContain('tools[0].description');
    expect(err.message).toContain("tool 'ok_tool'");
    expect(() => validatePlugin(plugin('mine', [tool('ok_tool', { description: '   ' })]), 'config')).toThrow(/tools\[0\]\.description/);
  });

  it.each([
    ['a non-object zod schema', z.string()],
    ['a plain object', { radius: 'number' }],
    ['a zod array', z.array(z.number())],
  ])('refuses an input that is %s', (_label, input) => {
    const err = caught(() => validatePlugin(plugin('mine', [tool('t', { input: input as never })]), 'config'));
    expect(err.message).toContain("plugin 'mine'");
    expect(err.message).toContain('tools[0].input');
    expect(err.message).toContain('zod object');
  });

  it('refuses an output that is not a zod schema', () => {
    const err = caught(() => validatePlugin(plugin('mine', [tool('t', { output: { ok: true } as never })]), 'config'));
    expect(err.message).toContain('tools[0].output');
  });

  it('refuses a run that is not a function', () => {
    const err = caught(() => validatePlugin(plugin('mine', [tool('t', { run: 'nope' as never })]), 'config'));
    expect(err.message).toContain("plugin 'mine'");
    expect(err.message).toContain('tools[0].run');
    expect(err.message).toContain('function');
  });

  it.each([...RESERVED_NAMES])('refuses the reserved name %j', (name) => {
    const err = caught(() => validatePlugin(plugin('mine', [tool(name)]), 'config'));
    expect(err.message).toContain('tools[0].name');
    expect(err.message).toContain('reserved');
  });

  it('names the right tool index when a later tool is bad', () => {
    const err = caught(() => validatePlugin(plugin('mine', [tool('fine'), tool('also_fine'), tool('Bad')]), 'config'));
    expect(err.message).toContain('tools[2].name');
    expect(err.message).not.toContain('tools[0]');
  });

  it('refuses an unknown annotation', () => {
    const err = caught(() => validatePlugin(plugin('mine', [tool('t', { annotations: { readonly: true } as never })]), 'config'));
    expect(err.message).toContain('tools[0].annotations');
  });

  it('refuses a plugin for a newer host API and says to upgrade', () => {
    const err = caught(() => validatePlugin(plugin('future', [], { apiVersion: 2 }), 'npm'));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toContain("plugin 'future'");
    expect(err.message).toContain('API 2');
    expect(err.message).toContain(`API ${HOST_API_VERSION}`);
    expect(err.message).toContain('upgrade');
  });

  it('refuses a bad plugin name, version and apiVersion', () => {
    expect(caught(() => validatePlugin(plugin('Not OK', []), 'config')).message).toMatch(/name .*package-style/);
    expect(caught(() => validatePlugin(plugin('ok', [], { version: '' }), 'config')).message).toContain('version');
    expect(caught(() => validatePlugin(plugin('ok', [], { apiVersion: 0 }), 'config')).message).toContain('apiVersion');
  });

  it('refuses something that is not an object, naming where it came from', () => {
    const err = caught(() => validatePlugin(null, './my-plugin.js'));
    expect(err.message).toContain('./my-plugin.js');
    expect(err.message).toContain('definePlugin');
    expect(caught(() => validatePlugin('x', 'pkg')).message).toContain('pkg');
  });

  it('refuses a plugin that defines a tool twice', () => {
    const err = caught(() => validatePlugin(plugin('twice', [tool('same'), tool('same')]), 'config'));
    expect(err.message).toContain("plugin 'twice'");
    expect(err.message).toContain("'same'");
  });

  it('refuses a non-function setup or service start', () => {
    expect(caught(() => validatePlugin(plugin('s', [], { setup: 1 as never }), 'config')).message).toContain('setup');
    expect(caught(() => validatePlugin(plugin('s', [], { services: [{ name: 'svc', start: 'x' as never }] }), 'config')).message).toContain('services[0].start');
  });

  it('accepts a schema from another copy of zod (recognised by shape)', () => {
    const foreign = z.object({ a: z.number() });
    Object.setPrototypeOf(foreign, Object.create(null)); // no instanceof link to this zod's classes
    Object.assign(foreign, { safeParse: () => ({ success: true }) });
    expect(() => validatePlugin(plugin('foreign', [tool('t', { input: foreign as never })]), 'npm')).not.toThrow();
  });
});

// ---- registry ---------------------------------------------------------------------

describe('ToolRegistry availability', () => {
  function registryWith(...tools: ToolSpec[]): ToolRegistry {
    const r = new ToolRegistry();
    r.registerPlugin(plugin('p', tools));
    return r;
  }

  it('makes a tool available when its caps are advertised', () => {
    const r = registryWith(tool('state', { requires: ['state'] }));
    expect(r.availability(r.get('state')!, view(normalizeCaps(['STATE'])))).toEqual({ name: 'state', available: true });
  });

  it('says why a tool is missing on a server-vantage mod', () => {
    const r = registryWith(tool('chat', { requires: ['chat', 'state'] }));
    const a = r.availability(r.get('chat')!, view(normalizeCaps(['state'])));
    expect(a.available).toBe(false);
    expect(a.missing).toEqual(['chat']);
    expect(a.reason).toContain('server-vantage');
    expect(a.reason).toContain("does not advertise 'chat'");
    expect(a).not.toHaveProperty('dependency');
    expect(a).not.toHaveProperty('disabled');
  });

  it('says when the reason is the default surface, before any mod connected', () => {
    const r = registryWith(tool('chat', { requires: ['chat'] }));
    const a = r.availability(r.get('chat')!, view(normalizeCaps([...DEFAULT_CAPS.server]), { source: 'default', instance: null }));
    expect(a.available).toBe(false);
    expect(a.reason).toContain('default server-vantage surface');
    expect(a.reason).toContain("'chat'");
  });

  it('uses the instance label in the reason', () => {
    const r = registryWith(tool('screen', { requires: ['screen'] }));
    const a = r.availability(r.get('screen')!, view(new Set(), { vantage: 'client', instance: 'client' }));
    expect(a.reason).toBe("the connected client-vantage mod does not advertise 'screen'");
  });

  it('filters nothing when caps are unknown', () => {
    const r = registryWith(tool('chat', { requires: ['chat'] }), tool('player', { requires: ['player'] }));
    expect(r.availability(r.get('chat')!, view(null)).available).toBe(true);
    expect(r.availability(r.get('player')!, view(null)).available).toBe(true);
  });

  it('hides every mod-backed tool when the mod advertises nothing, but not tools without requirements', () => {
    const r = registryWith(tool('state', { requires: ['state'] }), tool('status'));
    expect(r.availability(r.get('state')!, view(new Set())).available).toBe(false);
    expect(r.availability(r.get('status')!, view(new Set())).available).toBe(true);
  });

  it('carries the upstream dependency for player and context, supported or not', () => {
    const r = registryWith(tool('player', { requires: ['player'] }), tool('context', { requires: ['context_bundle'] }));
    const none = view(normalizeCaps(['state']));
    expect(r.availability(r.get('player')!, none)).toMatchObject({ available: false, dependency: 'mc-agent-interface-mod#1' });
    expect(r.availability(r.get('context')!, none)).toMatchObject({ available: false, dependency: 'mc-agent-interface-mod#2' });
    const both = view(normalizeCaps(['playercontext', 'chat_context']));
    expect(r.availability(r.get('player')!, both)).toEqual({ name: 'player', available: true, dependency: 'mc-agent-interface-mod#1' });
    expect(r.availability(r.get('context')!, both)).toEqual({ name: 'context', available: true, dependency: 'mc-agent-interface-mod#2' });
  });

  it('refuses a missing capability with unsupported_capability and a message that names the dependency', () => {
    const r = registryWith(tool('player', { requires: ['player'] }));
    const refusal = r.refusal(r.get('player')!, view(normalizeCaps(['state'])));
    expect(refusal).toBeInstanceOf(McbridgeError);
    expect(refusal!.code).toBe('unsupported_capability');
    expect(refusal!.message).toContain('mc-agent-interface-mod#1');
    expect(refusal!.message).toContain(CAPABILITY_ORIGINS.player!.label);
    expect(refusal!.message).toContain('nothing was sent to the game');
    expect(refusal!.details).toMatchObject({ tool: 'player', missing: ['player'], vantage: 'server', dependency: 'mc-agent-interface-mod#1' });
  });

  it('the chat refusal says what is not advertised and points at --vantage client', () => {
    const r = registryWith(tool('chat', { requires: ['chat'] }));
    const refusal = r.refusal(r.get('chat')!, view(normalizeCaps(['state'])))!;
    expect(refusal.message).toContain("does not advertise 'chat'");
    expect(refusal.message).toContain('--vantage client');
    expect(refusal.message).toContain('nothing was sent to the game');
    expect(refusal.details).not.toHaveProperty('dependency');
  });

  it('unsupportedMessage on the client vantage points to a server-vantage mod instead', () => {
    const msg = unsupportedMessage('snapshot', ['snapshot'], view(new Set(), { vantage: 'client', instance: 'client' }));
    expect(msg).toContain('nothing was sent to the game');
    expect(msg).toContain('server-vantage');
    expect(msg).not.toContain('--vantage client');
  });

  it('has no refusal for an available tool', () => {
    const r = registryWith(tool('state', { requires: ['state'] }));
    expect(r.refusal(r.get('state')!, view(normalizeCaps(['state'])))).toBeNull();
  });

  it('adds plugin-wide caps to each tool, canonicalised and de-duplicated', () => {
    const r = new ToolRegistry();
    r.registerPlugin(plugin('p', [tool('a', { requires: ['player_context', 'state'] }), tool('b')], { requires: { caps: ['state', 'PlayerContext'] } }));
    expect(r.get('a')!.requires).toEqual(['state', 'player']);
    expect(r.get('b')!.requires).toEqual(['state', 'player']);
  });
});

describe('ToolRegistry registration', () => {
  it('refuses a tool defined by two plugins, naming both owners, and registers none of the second', () => {
    const r = new ToolRegistry();
    r.registerPlugin(plugin('first', [tool('state')]));
    const revision = r.revision;
    const err = caught(() => r.registerPlugin(plugin('second', [tool('extra'), tool('state')])));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toContain("'state'");
    expect(err.message).toContain("'first'");
    expect(err.message).toContain("'second'");
    expect(err.details).toMatchObject({ owners: ['first', 'second'] });
    expect(r.get('extra')).toBeUndefined();
    expect(r.get('state')!.plugin).toBe('first');
    expect(r.revision).toBe(revision);
  });

  it('grows the revision on register, unregister and bump, and emits change', () => {
    const r = new ToolRegistry();
    const changes: number[] = [];
    r.on('change', (rev: number) => changes.push(rev));
    const r0 = r.revision;
    r.registerPlugin(plugin('p', [tool('a'), tool('b')]));
    const r1 = r.revision;
    expect(r1).toBeGreaterThan(r0);
    r.unregisterPlugin('p');
    const r2 = r.revision;
    expect(r2).toBeGreaterThan(r1);
    expect(r.list()).toEqual([]);
    r.bump();
    expect(r.revision).toBeGreaterThan(r2);
    expect(changes).toEqual([r1, r2, r.revision]);
  });

  it('does not change the revision when nothing changed', () => {
    const r = new ToolRegistry();
    r.registerPlugin(plugin('p', [tool('a')]));
    const rev = r.revision;
    r.registerPlugin(plugin('empty', []));
    r.unregisterPlugin('nobody');
    expect(r.revision).toBe(rev);
  });

  it('unregisters only the named plugin', () => {
    const r = new ToolRegistry();
    r.registerPlugin(plugin('p', [tool('a')]));
    r.registerPlugin(plugin('q', [tool('b')]));
    r.unregisterPlugin('p');
    expect(r.list().map((t) => t.name)).toEqual(['b']);
    // And the freed name can be taken again.
    r.registerPlugin(plugin('r', [tool('a')]));
    expect(r.get('a')!.plugin).toBe('r');
  });
});

describe('tool policy', () => {
  const readOnlyTool = tool('state', { annotations: { readOnly: true } });
  const writeTool = tool('command', { annotations: { destructive: true } });
  const unannotated = tool('wait');

  it('read-only mode hides every tool not annotated readOnly', () => {
    const r = new ToolRegistry({ readOnly: true });
    r.registerPlugin(plugin('p', [readOnlyTool, writeTool, unannotated]));
    const v = view(null);
    expect(r.availability(r.get('state')!, v).available).toBe(true);
    for (const name of ['command', 'wait']) {
      const a = r.availability(r.get(name)!, v);
      expect(a).toMatchObject({ available: false, disabled: true });
      expect(a.reason).toContain('read-only');
      const refusal = r.refusal(r.get(name)!, v)!;
      expect(refusal.code).toBe('tool_disabled');
      expect(refusal.message).toContain(`'${name}'`);
    }
  });

  it('policy wins over capabilities', () => {
    const r = new ToolRegistry({ deny: ['state'] });
    r.registerPlugin(plugin('p', [tool('state', { requires: ['chat'] })]));
    expect(r.refusal(r.get('state')!, view(new Set()))!.code).toBe('tool_disabled');
  });

  it('allow globs keep only matching tools', () => {
    const r = new ToolRegistry({ allow: ['state*'] });
    r.registerPlugin(plugin('p', [tool('state'), tool('state_diff'), tool('entities'), tool('my_state')]));
    const v = view(null);
    expect(r.availability(r.get('state')!, v).available).toBe(true);
    expect(r.availability(r.get('state_diff')!, v).available).toBe(true);
    expect(r.availability(r.get('entities')!, v)).toMatchObject({ available: false, disabled: true });
    expect(r.availability(r.get('my_state')!, v).reason).toContain('allow list');
  });

  it('deny globs remove matching tools even when allowed', () => {
    const r = new ToolRegistry({ allow: ['*'], deny: ['?ait'] });
    r.registerPlugin(plugin('p', [tool('wait'), tool('bait'), tool('await'), tool('ait')]));
    const v = view(null);
    expect(r.availability(r.get('wait')!, v)).toMatchObject({ available: false, disabled: true });
    expect(r.availability(r.get('wait')!, v).reason).toContain('deny list');
    expect(r.availability(r.get('bait')!, v).available).toBe(false);
    expect(r.availability(r.get('await')!, v).available).toBe(true);
    expect(r.availability(r.get('ait')!, v).available).toBe(true);
  });

  it('an empty allow list allows everything', () => {
    expect(policyVerdict({ allow: [] }, subject('anything'))).toBeNull();
  });

  it('globs match whole names and treat other characters literally', () => {
    const matchesAny = (name: string, globs: string[]) => policyVerdict({ deny: globs }, subject(name)) !== null;
    expect(matchesAny('state', ['state'])).toBe(true);
    expect(matchesAny('states', ['state'])).toBe(false);
    expect(matchesAny('xstate', ['state*'])).toBe(false);
    expect(matchesAny('a.b', ['a.b'])).toBe(true);
    expect(matchesAny('axb', ['a.b'])).toBe(false);
    expect(matchesAny('a+b', ['a+b'])).toBe(true);
    expect(matchesAny('anything', ['nope', '*'])).toBe(true);
  });

  it('setPolicy changes availability and bumps the revision', () => {
    const r = new ToolRegistry();
    r.registerPlugin(plugin('p', [writeTool]));
    const rev = r.revision;
    r.setPolicy({ readOnly: true });
    expect(r.revision).toBeGreaterThan(rev);
    expect(r.getPolicy()).toEqual({ readOnly: true });
    expect(r.availability(r.get('command')!, view(null)).disabled).toBe(true);
  });
});

describe('manifest', () => {
  it('carries JSON Schemas, annotations, requirements, owner and availability', () => {
    const r = new ToolRegistry();
    r.registerPlugin(
      plugin('entities', [
        tool('entities', {
          description: 'List entities near a point.',
          input: z.object({ radius: z.number().optional(), type: z.string() }),
          output: z.object({ count: z.number().int() }),
          requires: ['entities'],
          annotations: { readOnly: true, idempotent: true },
        }),
        tool('chat', { requires: ['chat'] }),
      ]),
    );
    const tools = r.manifestTools(view(normalizeCaps(['entities'])));
    expect(tools.map((t) => t.name)).toEqual(['entities', 'chat']);
    const entities = tools[0]!;
    expect(entities).toMatchObject({
      name: 'entities',
      description: 'List entities near a point.',
      annotations: { readOnly: true, idempotent: true },
      requires: ['entities'],
      plugin: 'entities',
      available: true,
    });
    const input = entities.inputSchema as { type: string; properties: Record<string, { type: string }>; required?: string[] };
    expect(input.type).toBe('object');
    expect(input.properties.radius!.type).toBe('number');
    expect(input.properties.type!.type).toBe('string');
    expect(input.required).toEqual(['type']);
    expect(entities.inputSchema).not.toHaveProperty('$schema');
    expect((entities.outputSchema as { properties: Record<string, { type: string }> }).properties.count!.type).toBe('integer');
    expect(entities).not.toHaveProperty('missing');
    expect(entities).not.toHaveProperty('reason');

    const chat = tools[1]!;
    expect(chat.available).toBe(false);
    expect(chat.missing).toEqual(['chat']);
    expect(chat.reason).toContain("'chat'");
    expect(chat).not.toHaveProperty('outputSchema');
    expect(chat.annotations).toEqual({});
  });

  it('produces a schema even for types JSON Schema cannot represent', () => {
    const r = new ToolRegistry();
    expect(() => r.registerPlugin(plugin('p', [tool('when', { input: z.object({ at: z.date().optional() }) })]))).not.toThrow();
    expect(r.get('when')!.inputSchema).toHaveProperty('properties.at');
  });

  it('shows disabled tools as unavailable with the policy reason', () => {
    const r = new ToolRegistry({ readOnly: true });
    r.registerPlugin(plugin('p', [tool('command')]));
    const [entry] = r.manifestTools(view(null));
    expect(entry).toMatchObject({ name: 'command', available: false });
    expect(entry!.reason).toContain('read-only');
  });
});
