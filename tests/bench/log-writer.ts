/**
 * The child of the log-capture bench (log-capture.ts): writes N console lines in Minecraft's
 * Log4j layouts to stdout as fast as the pipe takes them, in every 50 lines an ERROR record
 * with a 5-line stack trace, then exits. The same bytes for every reader under test.
 */
const total = Number(process.argv[2]);
if (!Number.isInteger(total) || total < 50) throw new Error(`usage: log-writer <lines, a whole number of at least 50>, got '${process.argv[2]}'`);

/** 50 lines: 44 records of several layouts, an ERROR record and its 5 trace lines. */
function block(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < 44; i += 1) {
    const s = String((n + i) % 60).padStart(2, '0');
    if (i % 11 === 0) out.push(`[12:34:${s}] [Worker-Main-${i % 4}/WARN] [minecraft/RecipeManager]: Couldn't parse data file minecraft:recipe_${n}_${i} from minecraft:recipes/x.json`);
    else if (i % 7 === 0) out.push(`[07Dec2026 12:34:${s}.${String(i * 7).padStart(3, '0')}] [Server thread/INFO] [mc-agent-interface/]: client connected from 127.0.0.1:${50000 + i}`);
    else out.push(`[12:34:${s}] [Server thread/INFO]: Preparing spawn area: ${(n + i) % 100}% (block ${n}, line ${i})`);
  }
  out.push(`[12:35:00] [Server thread/ERROR]: Encountered an unexpected exception in tick ${n}`);
  out.push(`java.lang.IllegalStateException: tick ${n} failed`);
  out.push('\tat net.minecraft.server.MinecraftServer.tickServer(MinecraftServer.java:1234)');
  out.push('\tat net.minecraft.server.MinecraftServer.runServer(MinecraftServer.java:987)');
  out.push('\tat java.base/java.lang.Thread.run(Thread.java:1583)');
  out.push('Caused by: java.lang.NullPointerException: level is null');
  return out.join('\n') + '\n';
}

// Built first, so the time measured is the readers', not the building of the text.
const parts: string[] = [];
for (let n = 0; n < Math.floor(total / 50); n += 1) parts.push(block(n));
const data = Buffer.from(parts.join(''));
process.stdout.write(data);
