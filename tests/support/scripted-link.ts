/** A ModLink connected to a ScriptedMod, for the link's own tests. */
import { afterEach } from 'vitest';
import { ModLink, type ModLinkOptions } from '../../core/host/link/mod-link.js';
import { silentLogger } from '../../core/util/log.js';
import { ScriptedMod, type ScriptedModOptions } from './scripted-mod.js';
import { builtinVerbs } from './verbs.js';
import { waitUntil } from './wait-until.js';

export type StartLink = (modOptions?: ScriptedModOptions, linkOptions?: Partial<ModLinkOptions>) => Promise<{ mod: ScriptedMod; link: ModLink }>;

/**
 * Starts a scripted mod and a server-vantage link to it (the built-in plugins' verbs), resolving
 * once the link is ready; every pair started in a test stops after it, the link first.
 */
export function useScriptedLinks(): StartLink {
  const started: Array<{ mod: ScriptedMod; link: ModLink }> = [];
  afterEach(async () => {
    for (const { mod, link } of started.splice(0).reverse()) {
      await link.stop();
      await mod.stop();
    }
  });
  return async (modOptions = {}, linkOptions = {}) => {
    const mod = await ScriptedMod.start(modOptions);
    const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {}, ...linkOptions });
    started.push({ mod, link });
    link.start();
    await waitUntil(() => link.connected, 5_000, 'the link to be ready');
    return { mod, link };
  };
}
