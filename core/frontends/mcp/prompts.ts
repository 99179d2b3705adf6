/**
 * How to use the toolkit, for a model: the server's `instructions` (short) and the
 * `mc_guide` prompt (longer, written against the tools available right now).
 */
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { Manifest } from '../../host/plugin-api.js';
import { firstSentence } from '../../util/text.js';
import { mcpToolName } from './projection.js';

export const GUIDE_PROMPT = 'mc_guide';

export const INSTRUCTIONS =
  'Tools for a running Minecraft game, served by an mcbridge daemon. Call mc_capabilities first: it says whether the ' +
  'game is connected and which tools the connected mod supports. The mc_guide prompt says which tool to prefer and how ' +
  'event cursors and waits work, for the tools available now. Errors are results with isError and a machine `code`.';

export const guidePrompt: Prompt = {
  name: GUIDE_PROMPT,
  title: 'How to use the mcbridge Minecraft toolkit',
  description: 'Where to start, which tool to prefer, how event cursors and waits work, and what the error codes mean.',
};

/** A plugin's guide as MCP shows it: each tool named in backticks by its registry name gets its MCP name. */
export function projectGuide(text: string, toolNames: ReadonlySet<string>): string {
  return text.replace(/`([a-z][a-z0-9_]*)`/g, (whole, name: string) => (toolNames.has(name) ? `\`${mcpToolName(name)}\`` : whole));
}

/** The guide: each plugin's own advice for the tools it offers now (docs/plugins.md#a-guide-for-models), then the tool list. */
export function guideText(manifest: Manifest): string {
  const toolNames = new Set(manifest.tools.map((t) => t.name));
  const t = (name: string) => `\`${mcpToolName(name)}\``;
  const advice = (manifest.guides ?? []).map((g) => projectGuide(g.text, toolNames));
  const lines: string[] = [
    '# Using the mcbridge Minecraft toolkit',
    '',
    `The game is ${manifest.connected ? 'connected' : 'not connected right now'} (${manifest.vantage} vantage; tool list from ${manifest.capsSource === 'mod' ? "the mod's advertised capabilities" : `the ${manifest.capsSource} capabilities`}).`,
    '',
    ...advice.map((text, i) => `${i + 1}. ${text}`),
    `${advice.length + 1}. A refusal is a tool result with isError and a JSON body \`{code, error}\`: \`unsupported_capability\` (the connected mod lacks it; there is no fallback, nothing was sent), \`not_connected\` (the game is down: check status), \`invalid_params\` (fix the arguments as the message says), \`timeout\`, \`cancelled\`, \`mod_error\`, \`busy\` (another operation is changing the game: retry when it ends), \`unavailable\` (no daemon answers: the message says how to start one).`,
    '',
    'Tools available now:',
    ...manifest.tools.filter((tool) => tool.available).map((tool) => `- ${t(tool.name)}: ${firstSentence(tool.description)}`),
  ];
  const hidden = manifest.tools.filter((tool) => !tool.available);
  if (hidden.length > 0) {
    lines.push('', 'Not available on this surface:', ...hidden.map((tool) => `- ${t(tool.name)}: ${tool.reason ?? 'unavailable'}`));
  }
  return lines.join('\n');
}

export function guideResult(manifest: Manifest): GetPromptResult {
  return {
    description: guidePrompt.description,
    messages: [{ role: 'user', content: { type: 'text', text: guideText(manifest) } }],
  };
}
