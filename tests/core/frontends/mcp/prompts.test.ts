import { describe, expect, it } from 'vitest';
import { guideText, INSTRUCTIONS } from '../../../../core/frontends/mcp/prompts.js';
import { builtinPlugins } from '../../../../core/daemon/builtins.js';
import { makeHost, plugin, stopHostsAfterEach, tool } from '../../../support/host.js';

stopHostsAfterEach();

const skyPlugin = plugin('sky', [tool('sky_probe'), tool('sky_census', { requires: ['no-such-cap'] })], {
  guide: 'Call `sky_probe` before `sky_census`; its `radius` is in blocks.',
});
const hiddenPlugin = plugin('hidden', [tool('hidden_tool', { requires: ['no-such-cap'] })], { guide: 'Use `hidden_tool`.' });

describe("the mc_guide prompt is written from the plugins' own guides", () => {
  it('the manifest carries the guide of each plugin with a tool available now, in load order', () => {
    const host = makeHost([hiddenPlugin, skyPlugin, plugin('quiet', [tool('quiet_tool')])]);
    expect(host.manifest().guides).toEqual([{ plugin: 'sky', text: skyPlugin.guide }]);
  });

  it('numbers each guide, names tools as MCP shows them, and leaves other backticked words alone', () => {
    const text = guideText(makeHost([hiddenPlugin, skyPlugin]).manifest());
    expect(text).toContain('1. Call `mc_sky_probe` before `mc_sky_census`; its `radius` is in blocks.');
    expect(text).toMatch(/\n2\. A refusal is a tool result/);
    expect(text).not.toContain('Use `mc_hidden_tool`');
    expect(text).toMatch(/Not available on this surface:[\s\S]*- `mc_hidden_tool`/);
  });

  it('says nothing of a tool the surface lacks: without the built-in plugins, no built-in tool is named', () => {
    const text = guideText(makeHost([skyPlugin]).manifest());
    const builtinTools = builtinPlugins.flatMap((p) => (p.tools ?? []).map((t) => t.name));
    for (const name of builtinTools) expect(text).not.toContain(`\`mc_${name}\``);
  });

  it('the built-ins guide a model to capabilities, command_output and event cursors', () => {
    const text = guideText(makeHost(builtinPlugins).manifest());
    expect(text).toMatch(/Start with `mc_capabilities`/);
    expect(text).toMatch(/prefer `mc_command_output` over `mc_command`/);
    expect(text).toMatch(/`mc_events`.*`next`.*`since`/s);
    expect(INSTRUCTIONS).toMatch(/mc_capabilities/);
  });

  it('refuses a guide that is empty or too long, naming the plugin', () => {
    expect(() => makeHost([plugin('blank', [], { guide: '  ' })])).toThrow(/plugin 'blank'.*guide/);
    expect(() => makeHost([plugin('long', [], { guide: 'x'.repeat(2001) })])).toThrow(/plugin 'long'.*guide/);
  });
});
