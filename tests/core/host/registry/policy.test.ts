import { describe, expect, it } from 'vitest';
import { deniedCaps, policyProblems, policyVerdict, type PolicySubject } from '../../../../core/host/registry/policy.js';

const tool = (name: string, fields: Partial<PolicySubject> = {}): PolicySubject => ({ name, plugin: 'core', annotations: {}, requires: [], ...fields });

const TOOLS = [
  tool('state', { annotations: { readOnly: true }, requires: ['state'] }),
  tool('command', { annotations: { readOnly: false, destructive: true }, requires: ['command'] }),
  tool('command_output', { annotations: { readOnly: false }, requires: ['command'] }),
  tool('mark', { annotations: { readOnly: false }, requires: ['mark'] }),
  tool('sky_time', { plugin: 'mcbridge-plugin-sky', annotations: { readOnly: true }, requires: ['command'] }),
  tool('ping_out', { annotations: { readOnly: true, openWorld: true } }),
];

const hidden = (deny: string[]) => TOOLS.filter((t) => policyVerdict({ deny }, t) !== null).map((t) => t.name);

describe('policy selectors', () => {
  it('cap:<token> removes every tool that needs the capability, whatever its name', () => {
    expect(hidden(['cap:command'])).toEqual(['command', 'command_output', 'sky_time']);
    expect(hidden(['cap:COMMAND'])).toEqual(['command', 'command_output', 'sky_time']);
  });

  it("cap: follows the alias groups of the mod's capability names", () => {
    const ctx = tool('context', { requires: ['context_bundle'] });
    expect(policyVerdict({ deny: ['cap:context'] }, ctx)).not.toBeNull();
    expect(policyVerdict({ deny: ['cap:chat_context'] }, ctx)).not.toBeNull();
  });

  it('effect: selects by annotation', () => {
    expect(hidden(['effect:mutating'])).toEqual(['command', 'command_output', 'mark']);
    expect(hidden(['effect:destructive'])).toEqual(['command']);
    expect(hidden(['effect:open-world'])).toEqual(['ping_out']);
  });

  it("plugin:<name> selects a plugin's tools; an allow list takes selectors too", () => {
    expect(hidden(['plugin:mcbridge-plugin-sky'])).toEqual(['sky_time']);
    const allowed = TOOLS.filter((t) => policyVerdict({ allow: ['cap:state', 'mark'] }, t) === null).map((t) => t.name);
    expect(allowed).toEqual(['state', 'mark']);
  });

  it('the reason names the entry that matched', () => {
    expect(policyVerdict({ deny: ['mark', 'cap:command'] }, TOOLS[2])).toBe('removed by the tool deny list (cap:command)');
  });

  it('deniedCaps lists the canonical capabilities the deny list names', () => {
    expect([...deniedCaps({ deny: ['cap:Command', 'mark', 'cap:chat_context'] })]).toEqual(['command', 'context']);
  });
});

describe('policy entries that match nothing', () => {
  it('an exact name that is no tool is fatal, with the nearest name', () => {
    expect(policyProblems({ deny: ['Command'] }, TOOLS)).toEqual([
      { path: 'deny[0]', entry: 'Command', fatal: true, message: "'Command' is not the name of any tool; did you mean 'command'? (`mcbridge tools` lists them)" },
    ]);
    expect(policyProblems({ allow: ['state', 'statee'] }, TOOLS)).toMatchObject([{ path: 'allow[1]', fatal: true }]);
  });

  it('a misspelt capability is fatal like a misspelt tool name, with the nearest token', () => {
    expect(policyProblems({ deny: ['cap:comand'] }, TOOLS)).toEqual([
      {
        path: 'deny[0]',
        entry: 'cap:comand',
        fatal: true,
        message: "'cap:comand' is not a capability any tool needs; did you mean 'cap:command'? (`mcbridge tools --json` shows each tool's requires)",
      },
    ]);
  });

  it('an unknown selector or plugin is fatal; a glob, effect or capability that matches nothing yet is a warning', () => {
    const problems = policyProblems({ deny: ['effect:loud', 'plugin:nope', 'nope:x', 'weather_*', 'cap:snapshot'] }, TOOLS);
    expect(problems.map((p) => [p.entry, p.fatal])).toEqual([
      ['effect:loud', true],
      ['plugin:nope', true],
      ['nope:x', true],
      ['weather_*', false],
      ['cap:snapshot', false],
    ]);
    expect(problems[0].message).toContain('effect:mutating');
  });

  it('denying a tool by name while others still need its capability is a warning that names them and the fix', () => {
    const [problem] = policyProblems({ deny: ['command'] }, TOOLS);
    expect(problem).toMatchObject({ path: 'deny[0]', fatal: false });
    expect(problem.message).toBe("denies 'command', but 'command_output' can still do what needs the 'command' capability; deny 'cap:command' to remove every tool that needs it");
    expect(policyProblems({ deny: ['command', 'command_output'] }, TOOLS)).toEqual([]);
    expect(policyProblems({ deny: ['cap:command'] }, TOOLS)).toEqual([]);
  });
});
