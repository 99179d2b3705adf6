import { describe, expect, it } from 'vitest';
import { linkProblems, linkSettings, targetSpecs, targetsSchema } from '../../../../core/daemon/config/targets.js';

const issues = (targets: unknown) => {
  const parsed = targetsSchema.safeParse(targets);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('control targets in a config', () => {
  it('takes a complete control target, with its paths resolved from the config folder', () => {
    const far = { transport: 'control', address: 'mc.example.org:25565', pin: `sha256:${'ab'.repeat(32)}`, tokenFile: 'secrets/far.token' } as const;
    expect(issues({ far })).toEqual([]);
    const [spec] = targetSpecs({ far }, '/srv/bridge');
    expect(spec!.link).toEqual({ transport: 'control', address: 'mc.example.org:25565', pin: far.pin, tokenFile: '/srv/bridge/secrets/far.token' });
  });

  it('says what a control target lacks, and what a legacy one must not have', () => {
    expect(issues({ far: { transport: 'control', address: 'h:1' } })).toEqual([
      "far: transport 'control' needs the server verified: pin (sha256:…), caFile, or serverDir (its mc-agent-server/control/fingerprint.txt)",
      "far: transport 'control' needs a credential: tokenFile or tokenEnv",
    ]);
    expect(issues({ far: { transport: 'control', serverDir: 'far' } })).toContain("far: transport 'control' needs address: the game port as host:port");
    expect(issues({ far: { transport: 'control', address: 'h:1', pin: 'x', caFile: 'c', tokenFile: 't', tokenEnv: 'T' } })).toEqual([
      'far: give pin or caFile, not both',
      'far: give tokenFile or tokenEnv, not both',
    ]);
    expect(issues({ live: { serverDir: 'live', pin: 'x' } })).toEqual(["live: pin is for transport: 'control'; add it, or leave it out"]);
  });

  it('an embedded sim gives its own address, pin and credential; a flat legacy link keeps its fields', () => {
    expect(linkProblems({ transport: 'control', sim: { control: true } })).toEqual([]);
    expect(issues({ far: { sim: { control: true } } })).toEqual([]);
    expect(linkSettings({ modPort: 25581, reconnectDelay: 2 })).toEqual({ modPort: 25581, reconnectMinMs: 2000, reconnectMaxMs: 2000 });
  });
});
