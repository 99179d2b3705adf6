/** The commands that write files for people who set mcbridge up or write for it: `init`, `create-plugin`. */
import type { Command } from 'commander';

export function addAuthoringCommands(program: Command): void {
  program
    .command('init')
    .description('write a commented mcbridge.config.ts for a server directory (never over an existing one)')
    .option('--dir <dir>', 'the server directory', '.')
    .action(async (opts) => (await import('./init.js')).initCommand(opts));

  program
    .command('create-plugin')
    .description('create a plugin package (package.json, tsconfig, source, test) that builds, tests and loads as it is')
    .argument('<name>', 'e.g. weather (the package mcbridge-plugin-weather) or @acme/weather')
    .option('--dir <dir>', 'where to create it (default: ./mcbridge-plugin-<name>)')
    .action(async (name: string, opts) => (await import('./create-plugin.js')).createPluginCommand(name, opts));
}
