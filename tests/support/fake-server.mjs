#!/usr/bin/env node
/**
 * A stand-in game server for the process tests (plain Node, no dependencies). It writes
 * Minecraft's Log4j console layout on stdout and reads console commands on stdin, one a line:
 *
 *   stop            `Stopping server`, then exit 0 (ignored under --ignore-stop)
 *   crash           a Java stack trace on stderr, then exit 1
 *   trace           a stack trace on stdout as one ERROR record; stays up
 *   fork            two grandchildren that keep running: one in this process group, one
 *                   detached (its own group); each printed as `grandchild <pid>`
 *   flood <n>       n log lines as fast as the pipe takes them, then `flood done`
 *   binary <bytes>  that many random bytes on stdout, then a newline and `binary done`
 *   bigline <bytes> one line of that many bytes, then `bigline done`
 *
 * Flags: --ignore-stop (stdin `stop` does nothing), --ignore-term (SIGTERM does nothing, so only
 * SIGKILL ends it), --crash-after <ms> (exit 1 after that long: a crash loop),
 * --port-file <path> (write a port number there, by rename, once ready), --mod (serve the
 * simulated mod from the built dist/ in this process, its port file in the working folder: a
 * server the daemon's link connects to, with this script's console behaviour), --slow <ms> (wait
 * that long before `Done`, the mod not up yet), --fork (run `fork` once started), --run
 * '<command>; <command>' (console commands run once started, in order; --run-after <ms> waits first).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import readline from 'node:readline';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const out = (text) => process.stdout.write(text);
const log = (level, message, thread = 'Server thread', logger) => out(`[${new Date().toISOString().slice(11, 19)}] [${thread}/${level}]${logger ? ` [${logger}]` : ''}: ${message}\n`);
const trace =
  'java.lang.IllegalStateException: boom\n\tat net.minecraft.Foo.bar(Foo.java:12)\n\tat net.minecraft.server.MinecraftServer.tick(MinecraftServer.java:812)\n\tat java.base/java.lang.Thread.run(Thread.java:1583)\n';

// Like a real server, it outlives a closed console (its daemon SIGKILLed): the orphan the journal finds.
setInterval(() => {}, 1 << 30);
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});
if (flag('--ignore-term')) process.on('SIGTERM', () => log('INFO', 'ignoring SIGTERM'));
const crashAfter = value('--crash-after');
if (crashAfter !== undefined) setTimeout(() => process.exit(1), Number(crashAfter));

log('INFO', 'Starting minecraft server version 1.21.4');
log('WARN', 'Parsing error loading recipe minecraft:broken', 'Worker-Main-2', 'minecraft/RecipeManager');
const portFile = value('--port-file');
if (portFile !== undefined) {
  fs.writeFileSync(`${portFile}.tmp`, '25565');
  fs.renameSync(`${portFile}.tmp`, portFile);
}
if (value('--slow') !== undefined) await new Promise((r) => setTimeout(r, Number(value('--slow'))));
if (flag('--mod')) {
  const { startSim } = await import(new URL('../../dist/core/sim/index.js', import.meta.url).href);
  const sim = await startSim({ dir: process.cwd(), port: 0, worldDisk: false });
  log('INFO', `mod listening on port ${sim.port}`);
}
log('INFO', 'Done (0.042s)! For help, type "help"');

const forever = ['-e', 'setInterval(() => {}, 1 << 30)'];
const commands = {
  stop() {
    if (flag('--ignore-stop')) return log('INFO', 'ignoring stop');
    log('INFO', 'Stopping server');
    process.exit(0);
  },
  crash() {
    process.stderr.write(`Exception in thread "Server thread" ${trace}`, () => process.exit(1));
  },
  trace() {
    log('ERROR', `Encountered an unexpected exception\n${trace.trimEnd()}`);
  },
  fork() {
    const same = spawn(process.execPath, forever, { stdio: 'ignore' });
    const escaped = spawn(process.execPath, forever, { stdio: 'ignore', detached: true });
    escaped.unref();
    out(`grandchild ${same.pid}\ngrandchild ${escaped.pid}\n`);
  },
  flood(n) {
    for (let i = 0; i < Number(n); i++) log('INFO', `flood line ${i}`);
    log('INFO', 'flood done');
  },
  binary(bytes) {
    for (let left = Number(bytes); left > 0; left -= 65536) out(randomBytes(Math.min(left, 65536)));
    out('\n');
    log('INFO', 'binary done');
  },
  bigline(bytes) {
    const block = 'x'.repeat(65536);
    for (let left = Number(bytes); left > 0; left -= block.length) out(left >= block.length ? block : block.slice(0, left));
    out('\n');
    log('INFO', 'bigline done');
  },
};

if (flag('--fork')) commands.fork();
setTimeout(
  () => {
    for (const line of (value('--run') ?? '').split(';')) {
      const [name, arg] = line.trim().split(/\s+/);
      if (name) commands[name](arg);
    }
  },
  Number(value('--run-after') ?? 0),
);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [name, arg] = line.trim().split(/\s+/);
  const command = commands[name];
  if (command) command(arg);
  else if (name) log('INFO', `Unknown command: ${name}`);
});
