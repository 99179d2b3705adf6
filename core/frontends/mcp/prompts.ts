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
  'game is connected and which tools the connected mod supports. Prefer mc_command_output over mc_command whenever ' +
  'the answer matters. Read events with mc_events and feed its `next` back as `since`. Errors are results with ' +
  'isError and a machine `code`. The mc_guide prompt explains more.';

export const guidePrompt: Prompt = {
  name: GUIDE_PROMPT,
  title: 'How to use the mcbridge Minecraft toolkit',
  description: 'Where to start, which tool to prefer, how event cursors and waits work, and what the error codes mean.',
};

/** The guide, naming only tools the current surface offers. */
export function guideText(manifest: Manifest): string {
  const available = new Set(manifest.tools.filter((t) => t.available).map((t) => t.name));
  const has = (name: string) => available.has(name);
  const t = (name: string) => `\`${mcpToolName(name)}\``;
  const lines: string[] = [
    '# Using the mcbridge Minecraft toolkit',
    '',
    `The game is ${manifest.connected ? 'connected' : 'not connected right now'} (${manifest.vantage} vantage; tool list from ${manifest.capsSource === 'mod' ? "the mod's advertised capabilities" : `the ${manifest.capsSource} capabilities`}).`,
    '',
    `1. Start with ${t('capabilities')}: it says whether the game is connected, which vantage it is, and for every tool whether the connected mod supports it and why not. Call ${t('status')} first whenever something fails: it shows the link, the last connection error and the event counters.`,
  ];
  if (has('command_output')) {
    lines.push(`2. To run a Minecraft command, prefer ${t('command_output')} over ${t('command')} whenever the answer matters: it collects what the command printed. ${t('command')} only acknowledges that the command ran. A failing vanilla command is not a tool error: read its output.`);
  } else if (has('command')) {
    lines.push(`2. ${t('command')} runs one console command; on the server vantage its \`output\` holds the feedback lines. A failing vanilla command is not a tool error: read \`output\`.`);
  }
  if (has('events')) {
    lines.push(`3. ${t('events')} replays buffered game events with a cursor: pass the \`next\` of one answer as \`since\` in the next call and you see each event exactly once. \`dropped\` tells you when some are missing (evicted from the buffer, or cut by \`limit\`: call again).${has('mark') ? ` Put a ${t('mark')} in the stream before an experiment to find its events later.` : ''}`);
  }
  const waits = [has('wait') ? `${t('wait')} lets game time pass (20 ticks = 1 second)` : null, has('wait_for') ? `${t('wait_for')} waits until a matching event happens` : null].filter(Boolean);
  if (waits.length > 0) {
    lines.push(`4. ${waits.join('; ')}. Long waits report progress, and cancelling the request stops the wait in the daemon.`);
  }
  lines.push(
    '5. A refusal is a tool result with isError and a JSON body `{code, error}`: `unsupported_capability` (the connected mod lacks it; there is no fallback, nothing was sent), `not_connected` (the game is down: check status), `invalid_params` (fix the arguments as the message says), `timeout`, `cancelled`, `mod_error`, `busy` (another operation is changing the game: retry when it ends), `unavailable` (no daemon answers: the message says how to start one).',
    '',
    'Tools available now:',
    ...manifest.tools.filter((tool) => tool.available).map((tool) => `- ${t(tool.name)}: ${firstSentence(tool.description)}`),
  );
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
