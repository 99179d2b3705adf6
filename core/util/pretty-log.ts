/**
 * pino's JSON lines turned into lines a person reads: `12:03:04.567 INFO  message  key=value`.
 * Small on purpose (pino-pretty is a dependency tree of its own); colour only on a terminal.
 */
const LEVELS: Record<number, { name: string; colour: string }> = {
  10: { name: 'TRACE', colour: '90' },
  20: { name: 'DEBUG', colour: '36' },
  30: { name: 'INFO ', colour: '32' },
  40: { name: 'WARN ', colour: '33' },
  50: { name: 'ERROR', colour: '31' },
  60: { name: 'FATAL', colour: '35' },
};

/** pino's own keys, shown in the line's head or not at all. */
const HEAD = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name']);

function clock(time: unknown): string {
  const date = typeof time === 'number' ? new Date(time) : new Date();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function show(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value !== null && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') {
    return JSON.stringify((value as { message: string }).message); // a serialized error: its message, not its stack
  }
  return JSON.stringify(value) ?? String(value);
}

/** One JSON log line in, one readable line out (with its newline); a line that is not JSON passes as it is. */
export function prettyLine(line: string, colour: boolean): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : line + '\n';
  }
  const level = LEVELS[record.level as number] ?? { name: String(record.level).toUpperCase().padEnd(5), colour: '0' };
  const paint = (code: string, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const name = typeof record.name === 'string' && record.name !== 'mcbridge' ? `[${record.name}] ` : '';
  const fields = Object.entries(record)
    .filter(([key, value]) => !HEAD.has(key) && value !== undefined)
    .map(([key, value]) => `${paint('90', key + '=')}${show(value)}`);
  const msg = typeof record.msg === 'string' ? record.msg : '';
  return `${paint('90', clock(record.time))} ${paint(level.colour, level.name)} ${name}${msg}${fields.length ? '  ' + fields.join(' ') : ''}\n`;
}
