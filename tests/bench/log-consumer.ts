/**
 * One reader of the log-capture bench (log-capture.ts), a process of its own so its memory is its
 * own: spawns the writer, reads its stdout pipe with `capture` (the logs plugin's LogCapture),
 * `readline` or `split` (a plain newline count), and prints one JSON line: lines, ms from the first
 * chunk to the end and the CPU time used meanwhile (steadier on a shared machine), peak RSS, and heap growth (peak sampled, and retained after a full GC).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { LogCapture } from '../../plugins/logs/capture.js';

const mode = process.argv[2];
const lines = process.argv[3]!;
const writer = path.join(path.dirname(fileURLToPath(import.meta.url)), 'log-writer.js');
const gc = (globalThis as { gc?: () => void }).gc;

function peakRss(): number {
  const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return kb === undefined ? Number.NaN : Number(kb) * 1024;
}

gc?.();
const heap0 = process.memoryUsage().heapUsed;
const rss0 = process.memoryUsage().rss;
let peakHeap = heap0;
let ticks = 0;
const sample = () => {
  if ((ticks++ & 15) === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
};

const child = spawn(process.execPath, [writer, lines], { stdio: ['ignore', 'pipe', 'inherit'] });
let first = 0;
let cpu0 = process.cpuUsage();
child.stdout.once('data', () => {
  first = performance.now();
  cpu0 = process.cpuUsage();
});
const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

let count = 0;
let records = 0;
let keep: unknown = null;
await new Promise<void>((resolve) => {
  if (mode === 'capture') {
    const capture = new LogCapture({ maxRecords: 10_000, maxBytes: 16 * 1024 * 1024 });
    keep = capture;
    child.stdout.on('data', (chunk: Buffer) => {
      capture.write('stdout', chunk);
      sample();
    });
    child.stdout.on('end', () => {
      capture.end('stdout');
      capture.stop();
      count = capture.counters().stdout!.lines;
      records = capture.ring.lastSeq;
      resolve();
    });
  } else if (mode === 'readline') {
    const rl = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
    rl.on('line', () => {
      count += 1;
      if ((count & 1023) === 0) sample();
    });
    rl.on('close', () => resolve());
  } else if (mode === 'split') {
    child.stdout.on('data', (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) count += 1;
      sample();
    });
    child.stdout.on('end', () => resolve());
  } else throw new Error(`mode must be capture, readline or split, got '${mode}'`);
});
const ms = performance.now() - first;
const used = process.cpuUsage(cpu0);
const cpuMs = (used.user + used.system) / 1000;
peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
await exited;
gc?.();
const retained = process.memoryUsage().heapUsed - heap0;
process.stdout.write(JSON.stringify({ mode, lines: count, records, ms, cpuMs, rss0, peakRss: peakRss(), peakHeapGrowth: peakHeap - heap0, retainedHeap: retained, kept: keep !== null }) + '\n');
