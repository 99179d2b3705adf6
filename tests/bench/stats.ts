/**
 * Small statistics and formatting helpers for the benchmark. Node built-ins only.
 */

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0..100) of an unsorted sample; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Round to a number of significant-looking decimals, keeping JSON output short. */
export function round(value: number, decimals = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

export function fmtInt(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Math.round(value).toLocaleString('en-US');
}

export function fmtNum(value: number, decimals = 2): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toFixed(decimals);
}

export function fmtMiB(bytes: number | null): string {
  if (bytes === null || !Number.isFinite(bytes)) return 'n/a';
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** A plain left/right-aligned text table: the first column left, the rest right. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Every table the run printed, for the Markdown summary at its end (docs/performance.md's table). */
const printed: Array<{ header: readonly string[]; rows: ReadonlyArray<readonly string[]> }> = [];

/** Print a table of [metric, ours, baseline, ratio, target, verdict] rows and keep it for the summary. */
export function printTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  console.log(table(header, rows));
  printed.push({ header, rows });
}

/** Rows for the summary only (a part whose printed table has other columns). */
export function keepRows(baseline: string, rows: ReadonlyArray<readonly string[]>): void {
  printed.push({ header: ['metric', 'mcbridge', baseline], rows });
}

/**
 * The rows that have a target, from every table printed, as one Markdown table: `| metric | ours |
 * baseline (what it is) | ratio | target | verdict |`. docs/performance.md's table is pasted from this.
 */
export function markdownSummary(): string {
  const lines = ['| metric | mcbridge | baseline | ratio | target | verdict |', '| --- | --- | --- | --- | --- | --- |'];
  for (const { header, rows } of printed) {
    for (const [metric, ours, base, ratio, target, verdict] of rows) {
      if (!target || target === 'info') continue;
      lines.push(`| ${metric} | ${ours} | ${base} (${header[2]}) | ${ratio} | ${target.replace('<=', '≤').replace('>=', '≥')} | ${verdict} |`);
    }
  }
  return lines.join('\n');
}
