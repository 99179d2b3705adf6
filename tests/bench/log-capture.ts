import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { fmtInt, fmtMiB, fmtNum, median, printTable, round } from './stats.js';

/**
 * Part 10 of `npm run bench`: a launched server's console through the logs plugin. A writer child
 * prints BENCH_LOG_LINES Log4j lines (default 200,000; every 50 lines an ERROR with a 5-line
 * trace) into a pipe; a reader process of its own takes them with LogCapture (the logs plugin's
 * capture: bounded lines, layouts parsed, traces joined and hashed, the ring), with readline (the
 * baseline, target: capture ≥ 0.8 × its lines/s) or with a plain newline count (shown, no target).
 * BENCH_LOG_ROUNDS rounds (default 5) alternate the order; the median counts. Each reader reports
 * its peak RSS and heap growth: the ring's bound (10,000 records, 16 MiB) must hold it.
 */
const run = promisify(execFile);
const CONSUMER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'log-consumer.js');
export const LOG_RATE_TARGET = 0.8;
/** Heap the capture may keep past its ring's 16 MiB bound (records as objects weigh more than their JSON). */
const HEAP_BOUND = 64 * 1024 * 1024;

interface Reading {
  mode: string;
  lines: number;
  records: number;
  ms: number;
  cpuMs: number;
  rss0: number;
  peakRss: number;
  peakHeapGrowth: number;
  retainedHeap: number;
}

async function read(mode: string, lines: number): Promise<Reading> {
  const { stdout } = await run(process.execPath, ['--expose-gc', CONSUMER, mode, String(lines)], { maxBuffer: 1024 * 1024 });
  const reading = JSON.parse(stdout) as Reading;
  // Every line must have been read, or the figure is of something else.
  if (reading.lines !== lines) throw new Error(`the ${mode} reader counted ${reading.lines} lines of ${lines}`);
  return reading;
}

export async function logCapturePart(lines: number, rounds: number): Promise<Record<string, unknown>> {
  const modes = ['capture', 'readline', 'split'];
  console.log('');
  console.log(`log capture: ${fmtInt(lines)} Log4j lines (2% ERROR records with 5-line traces) from a child through a pipe, ${rounds} rounds alternating; median counts`);
  for (const mode of modes) await read(mode, Math.min(lines, 50_000)); // warm the page cache and the binaries
  const readings: Record<string, Reading[]> = Object.fromEntries(modes.map((m) => [m, []]));
  for (let r = 0; r < rounds; r += 1) {
    for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) {
      const reading = await read(mode, lines);
      readings[mode]!.push(reading);
      process.stderr.write(
        `  log round ${r + 1} ${mode.padEnd(8)} ${fmtInt(lines / (reading.ms / 1000)).padStart(10)} lines/s  cpu ${fmtInt(reading.cpuMs).padStart(5)} ms  peak RSS ${fmtMiB(reading.peakRss)}  heap +${fmtMiB(reading.peakHeapGrowth)}\n`,
      );
    }
  }
  const rate = (mode: string) => lines / (median(readings[mode]!.map((x) => x.ms)) / 1000);
  const cpuRate = (mode: string) => lines / (median(readings[mode]!.map((x) => x.cpuMs)) / 1000);
  const peak = (mode: string, key: 'peakRss' | 'peakHeapGrowth' | 'retainedHeap') => Math.max(...readings[mode]!.map((x) => x[key]));
  const ratio = rate('capture') / rate('readline');
  const heap = peak('capture', 'peakHeapGrowth');
  printTable(
    ['metric', 'LogCapture', 'readline', 'ratio', 'target', 'verdict'],
    [
      ['log lines/s (median)', fmtInt(rate('capture')), fmtInt(rate('readline')), fmtNum(ratio, 2), `>= ${LOG_RATE_TARGET}`, ratio >= LOG_RATE_TARGET ? 'PASS' : 'MISS'],
      ['log lines per CPU second (median)', fmtInt(cpuRate('capture')), fmtInt(cpuRate('readline')), fmtNum(cpuRate('capture') / cpuRate('readline'), 2), 'info', ''],
      ['log reader peak RSS', fmtMiB(peak('capture', 'peakRss')), fmtMiB(peak('readline', 'peakRss')), fmtNum(peak('capture', 'peakRss') / peak('readline', 'peakRss'), 2), 'info', ''],
      ['log reader peak heap growth', fmtMiB(heap), fmtMiB(peak('readline', 'peakHeapGrowth')), '', `<= ${fmtMiB(HEAP_BOUND)}`, heap <= HEAP_BOUND ? 'PASS' : 'MISS'],
      ['log reader heap kept after GC', fmtMiB(peak('capture', 'retainedHeap')), fmtMiB(peak('readline', 'retainedHeap')), '', 'info', ''],
    ],
  );
  console.log(`plain newline count: ${fmtInt(rate('split'))} lines/s (capture is ${fmtNum(rate('capture') / rate('split'), 2)}x of it), load average ${os.loadavg()[0]!.toFixed(2)}`);
  return {
    lines,
    rounds,
    records: readings.capture![0]!.records,
    linesPerSec: Object.fromEntries(modes.map((m) => [m, round(rate(m), 0)])),
    linesPerCpuSec: Object.fromEntries(modes.map((m) => [m, round(cpuRate(m), 0)])),
    ratio: round(ratio, 3),
    target: LOG_RATE_TARGET,
    pass: ratio >= LOG_RATE_TARGET,
    peakRssBytes: Object.fromEntries(modes.map((m) => [m, peak(m, 'peakRss')])),
    peakHeapGrowthBytes: Object.fromEntries(modes.map((m) => [m, peak(m, 'peakHeapGrowth')])),
    retainedHeapBytes: Object.fromEntries(modes.map((m) => [m, peak(m, 'retainedHeap')])),
  };
}
