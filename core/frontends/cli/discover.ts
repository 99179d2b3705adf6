/**
 * `mcbridge targets --discover <dir>`: the game servers with the mod under a folder, whether each
 * answers, and for those the config does not name yet the target entry that would. Runs here,
 * without a daemon, and writes nothing (docs/targets.md, "Find servers").
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_TARGET } from '../../api/targets.js';
import { portFileText } from '../../host/link/discovery.js';
import { readOwnFile } from '../../util/state-file.js';
import { UsageError } from './exit.js';
import { errorCell, table } from './targets.js';

/** How far below <dir> a server may be: `servers/<group>/<name>` and a level to spare. */
export const MAX_DEPTH = 4;
/** Folder entries looked at in all: a home folder given by mistake ends in a second, not an hour. */
export const MAX_ENTRIES = 10_000;
/** Probes at once: enough for a rack of servers, not enough to look like a port scan. */
const PROBES_AT_ONCE = 16;
/** A probe's whole life: connect and greeting. The mod greets at once on connect. */
export const PROBE_DEADLINE_MS = 1500;
/** What a probe reads before it gives up on finding the greeting. */
export const PROBE_READ_CAP = 16 * 1024;

export type ServerState = 'live' | 'stale' | 'not-a-mod' | 'bad-port-file';

export interface FoundServer {
  name: string;
  dir: string;
  portFile: string;
  port: number | null;
  state: ServerState;
  /** Why it is not live, in words; null when it is. */
  reason: string | null;
  hello?: { version: unknown; instance: unknown; protocol: unknown };
  /** Whether it has a control listener's fingerprint (mc-agent-server/control/fingerprint.txt). */
  control: boolean;
  /** The configured target it already is, or null. */
  configured: string | null;
  /** The target entry to add to `targets` for it; null when it is configured. */
  snippet: string | null;
}

export interface Walked {
  folders: number;
  entries: number;
  unreadable: number;
  symlinks: number;
  tooDeep: number;
  /** The entry limit was reached: folders were left unread. */
  truncated: boolean;
}

interface Configured {
  name: string;
  serverDir?: string | undefined;
  portFile?: string | undefined;
}

/** Breadth first, never through a link, never into a mod folder: the servers' folders (D, with D/mc-agent-server/port.txt). */
export function walk(root: string): { found: string[]; walked: Walked } {
  const walked: Walked = { folders: 0, entries: 0, unreadable: 0, symlinks: 0, tooDeep: 0, truncated: false };
  const found: string[] = [];
  const queue: { dir: string; depth: number }[] = [{ dir: root, depth: 0 }];
  for (let next = 0; next < queue.length && !walked.truncated; next++) {
    const { dir, depth } = queue[next]!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      walked.unreadable++;
      continue;
    }
    walked.folders++;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (walked.entries >= MAX_ENTRIES) {
        walked.truncated = true;
        break;
      }
      walked.entries++;
      if (entry.isSymbolicLink()) walked.symlinks++;
      else if (!entry.isDirectory()) continue;
      else if (entry.name === 'mc-agent-server') {
        // Any kind of port.txt makes it a server: one that is not a plain file is reported as bad.
        if (exists(path.join(dir, entry.name, 'port.txt'))) found.push(dir);
      } else if (depth + 1 > MAX_DEPTH) walked.tooDeep++;
      else queue.push({ dir: path.join(dir, entry.name), depth: depth + 1 });
    }
  }
  return { found, walked };
}

function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** What a knock learns: the state, why, and the hello. */
interface Probe {
  state: ServerState;
  reason: string | null;
  hello?: FoundServer['hello'];
}

/** Knock on 127.0.0.1:port: the mod greets with a hello line (event lines may come first). */
export function probe(port: number): Promise<Probe> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let connected = false;
    let buffered = '';
    let bytes = 0;
    let settled = false;
    const done = (result: Probe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const notMod = (reason: string) => done({ state: 'not-a-mod', reason });
    const seconds = `${PROBE_DEADLINE_MS / 1000} s`;
    const timer = setTimeout(
      () => (connected ? notMod(`accepts connections but sent no greeting within ${seconds}`) : done({ state: 'stale', reason: `no answer to connect within ${seconds}` })),
      PROBE_DEADLINE_MS,
    );
    socket.on('connect', () => (connected = true));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (connected) notMod(`the connection failed: ${err.message}`);
      else done({ state: 'stale', reason: err.code === 'ECONNREFUSED' ? 'nothing listens there: the server is stopped (its mod leaves port.txt behind)' : `cannot connect: ${err.message}` });
    });
    socket.on('close', () => notMod('closed the connection without a greeting'));
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      buffered += chunk.toString('utf8');
      let newline: number;
      while (!settled && (newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') judge(line);
      }
      if (!settled && bytes > PROBE_READ_CAP) notMod(`sent over ${PROBE_READ_CAP / 1024} KiB without a greeting`);
    });
    function judge(line: string): void {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return notMod(`sent something that is not JSON: ${JSON.stringify(line.slice(0, 40))}`);
      }
      const m = (message ?? {}) as Record<string, unknown>;
      if (m.event === true) return;
      if (m.type === 'hello' && m.mod === 'mc-agent-interface') return done({ state: 'live', reason: null, hello: { version: m.version, instance: m.instance, protocol: m.protocol } });
      notMod(`its first message is not the mod's greeting (type ${JSON.stringify(m.type ?? null)}, mod ${JSON.stringify(m.mod ?? null)})`);
    }
  });
}

/** Run `work` on every item, at most `limit` at once, the results in the items' order. */
async function pooled<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A folder's name as a target name (TARGET_NAME): other characters become '-', up to 64, 'server' when nothing is left. */
export function targetName(folder: string): string {
  const cleaned = folder
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return cleaned === '' ? 'server' : cleaned;
}

/** `base`, or `base-2`, `base-3`… until it is not taken; the suffix never makes it longer than 64. */
function unique(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 64 - String(n).length - 1)}-${n}`;
  taken.add(name);
  return name;
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** The targets the config names, as the daemon would build them: without `targets`, the flat options are `default`. */
async function configuredTargets(cwd: string): Promise<{ file: string | null; dir: string; targets: Configured[]; error?: string }> {
  const [{ loadConfig }, { targetSpecs }] = await Promise.all([import('../../daemon/config/load.js'), import('../../daemon/config/targets.js')]);
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
    loaded = await loadConfig({ cwd });
  } catch (err) {
    const { findConfigFile } = await import('../../daemon/config/places.js');
    const file = findConfigFile(cwd);
    return { file, dir: file ? path.dirname(file) : cwd, targets: [], error: (err as Error).message };
  }
  if (loaded?.config.targets) {
    const specs = targetSpecs(loaded.config.targets, loaded.dir);
    return { file: loaded.file, dir: loaded.dir, targets: specs.map((s) => ({ name: s.name, serverDir: s.link.serverDir, portFile: 'portFile' in s.link ? s.link.portFile : undefined })) };
  }
  // One game, from the flat options (or the environment): where `mcbridge run` would look from here.
  const flat = (loaded?.config ?? {}) as { serverDir?: string; portFile?: string };
  const dir = loaded?.dir ?? cwd;
  const serverDir = flat.serverDir !== undefined ? path.resolve(dir, flat.serverDir) : path.resolve(cwd, process.env.MC_AGENT_SERVER_DIR || '.');
  const portFile = flat.portFile !== undefined ? path.resolve(dir, flat.portFile) : process.env.MC_AGENT_PORT_FILE ? path.resolve(cwd, process.env.MC_AGENT_PORT_FILE) : undefined;
  return { file: loaded?.file ?? null, dir, targets: [{ name: DEFAULT_TARGET, serverDir, portFile }] };
}

export interface Discovery {
  dir: string;
  config: string | null;
  configError?: string;
  servers: FoundServer[];
  count: number;
  walked: Walked;
}

export async function discover(dirArg: string, cwd = process.cwd()): Promise<Discovery> {
  const root = path.resolve(cwd, dirArg);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
  } catch {
    throw new UsageError(`--discover ${dirArg}: there is no folder ${root}; name the folder your servers are in`);
  }
  if (!stat.isDirectory()) throw new UsageError(`--discover ${dirArg}: ${root} is not a folder; name the folder your servers are in`);
  const config = await configuredTargets(cwd);
  const { found, walked } = walk(root);
  const servers = await pooled(found, PROBES_AT_ONCE, (dir) => look(dir));
  // Names: the configured keep theirs; the others take their folder's, clear of every configured name and each other.
  const taken = new Set(config.targets.map((t) => t.name));
  for (const s of servers) {
    const mine =
      config.error === undefined
        ? config.targets.find((t) => (t.serverDir !== undefined && real(t.serverDir) === s.dir) || (t.portFile !== undefined && real(t.portFile) === real(s.portFile)))
        : undefined;
    if (mine) {
      s.name = mine.name;
      s.configured = mine.name;
      continue;
    }
    s.name = unique(targetName(path.basename(s.dir)), taken);
    const relative = path.relative(config.dir, s.dir) || '.';
    s.snippet = `{ ${JSON.stringify(s.name)}: { "serverDir": ${JSON.stringify(relative)} } }`;
  }
  return { dir: root, config: config.file, ...(config.error !== undefined ? { configError: config.error } : {}), servers, count: servers.length, walked };
}

/** One server's folder: its port file read as the daemon reads it, then a knock on that port. */
async function look(folder: string): Promise<FoundServer> {
  const dir = real(folder);
  const portFile = path.join(dir, 'mc-agent-server', 'port.txt');
  const control = exists(path.join(dir, 'mc-agent-server', 'control', 'fingerprint.txt'));
  const rest = { control, configured: null, snippet: null };
  const read = readOwnFile(portFile, 64, 'a port file');
  const parsed = read === null ? { kind: 'bad' as const, problem: 'is gone (removed while looking)' } : 'problem' in read ? { kind: 'bad' as const, problem: read.problem } : portFileText(read.text);
  if (parsed.kind === 'bad') return { name: '', dir, portFile, port: null, state: 'bad-port-file', reason: `port.txt: ${parsed.problem}`, ...rest };
  return { name: '', dir, portFile, port: parsed.port, ...(await probe(parsed.port)), ...rest };
}

/** The folder as a person reads it: relative to here when it is below here. */
function shown(dir: string, cwd: string): string {
  const relative = path.relative(cwd, dir);
  return relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? dir : relative;
}

export function discoveryText(d: Discovery, cwd = process.cwd()): string {
  const lines: string[] = [];
  if (d.configError !== undefined) lines.push(`the config did not load, so nothing is marked as configured: ${errorCell(d.configError).cell}`, '');
  if (d.servers.length === 0) lines.push(`no servers under ${d.dir} (a server is a folder with mc-agent-server/port.txt)`);
  else {
    const rows = [['NAME', 'STATUS', 'PORT', 'DIR', 'DETAIL', 'CONFIG']];
    for (const s of d.servers) {
      const detail = s.hello ? `mod ${String(s.hello.version)}, ${String(s.hello.instance)}, protocol ${String(s.hello.protocol)}` : errorCell(s.reason ?? '').cell;
      rows.push([
        s.name,
        s.state,
        s.port === null ? '-' : String(s.port),
        shown(s.dir, cwd),
        s.control ? `${detail}; control listener` : detail,
        s.configured !== null ? `configured as '${s.configured}'` : s.snippet!,
      ]);
    }
    lines.push(...table(rows));
  }
  const w = d.walked;
  const skipped = [
    w.unreadable > 0 ? `${w.unreadable} unreadable` : '',
    w.symlinks > 0 ? `${w.symlinks} symbolic link${w.symlinks === 1 ? '' : 's'} (never followed)` : '',
    w.tooDeep > 0 ? `${w.tooDeep} folder${w.tooDeep === 1 ? '' : 's'} below depth ${MAX_DEPTH}` : '',
  ].filter(Boolean);
  lines.push('', `looked at ${w.folders} folder${w.folders === 1 ? '' : 's'}, ${w.entries} entries${skipped.length > 0 ? `; skipped ${skipped.join(', ')}` : ''}`);
  if (w.truncated) lines.push(`stopped at ${MAX_ENTRIES} entries: the rest was not looked at; name a folder closer to the servers`);
  const where = d.config ?? 'mcbridge.config.ts';
  if (d.servers.some((s) => s.snippet !== null)) lines.push(`nothing was added: to reach a new one, put its CONFIG entry into \`targets\` in ${where}`);
  else lines.push('nothing was added');
  return lines.join('\n') + '\n';
}

export async function discoverCommand(dir: string, opts: { json: boolean }): Promise<void> {
  const found = await discover(dir);
  process.stdout.write(opts.json ? JSON.stringify(found, null, 2) + '\n' : discoveryText(found));
}
