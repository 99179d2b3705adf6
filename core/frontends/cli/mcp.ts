import fs from 'node:fs';
import { UsageError } from './exit.js';
import type { McpCliOptions } from './mcp-options.js';
import type { GlobalOptions } from './options.js';
import { singleTarget } from './target.js';

/**
 * The front-end's code: the bundle `npm run build` makes (scripts/bundle-mcp.mjs), or the modules
 * themselves when running from the sources (the tests, `tsx`), where there is no bundle.
 */
async function loadMcpRun(): Promise<typeof import('../mcp/run.js')> {
  const bundle = new URL('../mcp/run.bundle.js', import.meta.url);
  if (fs.existsSync(bundle)) return (await import(bundle.href)) as typeof import('../mcp/run.js');
  return import('../mcp/run.js');
}

/** `mcbridge mcp`: the MCP front-end, in front of the daemon's local API. */
export async function mcpCommand(opts: McpCliOptions, global: GlobalOptions): Promise<void> {
  const embeddedOnly = {
    '--config': typeof opts.config === 'string' ? opts.config : undefined,
    '--no-config': opts.config === false || undefined,
    '--sim': opts.sim,
    '--read-only': opts.readOnly,
    '--mod-host': opts.modHost,
    '--mod-port': opts.modPort,
    '--port-file': opts.portFile,
    '--server-dir': opts.serverDir,
  };
  const misplaced = Object.entries(embeddedOnly)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k]) => k);
  if (!opts.embedded && misplaced.length > 0) {
    throw new UsageError(`${misplaced.join(', ')} configure the daemon that --embedded starts; pass --embedded, or give them to \`mcbridge run\``);
  }
  if (opts.transport === 'stdio') {
    const httpOnly = {
      '--token': opts.token,
      '--token-file': opts.tokenFile,
      '--allowed-host': opts.allowedHost,
      '--allowed-origin': opts.allowedOrigin,
      '--session-idle': opts.sessionIdle,
      '--port': opts.port,
    };
    const given = Object.entries(httpOnly)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    if (given.length > 0) throw new UsageError(`${given.join(', ')} apply to --transport http only`);
  }
  const token = opts.token ?? (process.env.MCBRIDGE_MCP_TOKEN || undefined);
  if (opts.transport === 'http') {
    // A usage error (exit 2), said before the front-end loads; the server refuses it too, in the same words.
    const { tokenlessBindRefusal } = await import('../mcp/http-guard.js');
    const refusal = tokenlessBindRefusal(opts.host, token);
    if (refusal) throw new UsageError(refusal);
  }
  // The MCP SDK loads only for this command; the other commands stay quick to start.
  const target = singleTarget(global.target, 'mcp');
  const { runMcp, createLogger } = await loadMcpRun();
  const log = createLogger({ level: global.logLevel, format: global.logFormat });
  await runMcp({
    transport: opts.transport,
    api: { host: global.apiHost, port: global.apiPort, token: global.apiToken },
    vantage: opts.vantage,
    ...(target !== undefined ? { target } : {}),
    startupWaitMs: opts.startupWait !== undefined ? opts.startupWait * 1000 : undefined,
    http: {
      host: opts.host,
      port: opts.port,
      token,
      tokenFile: opts.tokenFile,
      allowedHosts: opts.allowedHost,
      allowedOrigins: opts.allowedOrigin,
      sessionIdleMs: opts.sessionIdle !== undefined ? opts.sessionIdle * 1000 : undefined,
    },
    embedded: opts.embedded
      ? {
          sim: opts.sim === true,
          // Only what the command line says: the config's policy applies beneath it.
          policy: opts.readOnly === true ? { readOnly: true } : {},
          link: { modHost: opts.modHost, modPort: opts.modPort, portFile: opts.portFile, serverDir: opts.serverDir },
          // Plugins, composites and policy from mcbridge.config.*, as `mcbridge run` would load them.
          loadConfig:
            opts.config === false
              ? undefined
              : async () => {
                  const { loadConfig } = await import('../../daemon/config/load.js');
                  return loadConfig({ file: typeof opts.config === 'string' ? opts.config : undefined });
                },
        }
      : undefined,
    log,
  }).catch(async (err: NodeJS.ErrnoException & { address?: string; port?: number }) => {
    if (opts.transport !== 'http' || err.code !== 'EADDRINUSE') throw err;
    // Who holds it and what to do, as `run` says of its API port (exit 2: --port picks another).
    const { portTakenError } = await import('../../daemon/port-taken.js');
    throw await portTakenError({ host: err.address ?? opts.host, port: err.port ?? opts.port ?? 0, role: 'mcp-http' });
  });
}
