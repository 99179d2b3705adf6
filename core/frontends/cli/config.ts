import { describeOptions, describePlan } from '../../daemon/config/describe.js';
import { loadConfig } from '../../daemon/config/load.js';
import { neighboursOf, planConfig } from '../../daemon/config/runtime.js';
import { toolFacts } from '../../daemon/config/composites.js';
import { builtinPlugins } from '../../daemon/builtins.js';

/**
 * `mcbridge config`: the config `run` would use, resolved (packages found, options checked,
 * composites derived) and printed as JSON with secrets redacted. Nothing is started.
 */
export async function configCommand(opts: { config?: string | false }): Promise<void> {
  const loaded = opts.config === false ? null : await loadConfig({ file: typeof opts.config === 'string' ? opts.config : undefined });
  if (!loaded) {
    const none = {
      file: null,
      note: 'no mcbridge.config.{ts,mts,cts,js,mjs,cjs,json} or "mcbridge" key in package.json from here up to the project root; the defaults apply',
      ...describeOptions(),
      plugins: [],
      composites: [],
    };
    process.stdout.write(JSON.stringify(none, null, 2) + '\n');
    return;
  }
  const plan = await planConfig(loaded, neighboursOf(builtinPlugins));
  process.stdout.write(JSON.stringify(describePlan(plan, toolFacts(builtinPlugins)), null, 2) + '\n');
}
