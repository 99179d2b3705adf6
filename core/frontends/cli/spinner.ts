/**
 * What a person sees while a long call runs (a spinner line on a terminal) and the words used for
 * it, also when it is cancelled: "wait (200 ticks)", not the mod verb `WAIT 200`.
 */
import type { ProgressFrame } from '../../api/frames.js';

/** Calls that take a while by design: a spinner shows they are alive. */
const LONG_CALLS = new Set(['wait', 'wait_for', 'fork', 'restore']);

export function isLongCall(method: string): boolean {
  return LONG_CALLS.has(method);
}

function quoted(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
}

/** The call in user words: its name and the one or two arguments that say what it does. */
export function describeCall(method: string, params: Record<string, unknown>): string {
  switch (method) {
    case 'wait':
      return typeof params.ticks === 'number' ? `wait (${params.ticks} ticks)` : 'wait';
    case 'wait_for': {
      const match = params.match && typeof params.match === 'object' ? (params.match as Record<string, unknown>) : {};
      const what = Object.entries(match)
        .map(([key, value]) => `${key} ${quoted(value)}`)
        .join(', ');
      return what ? `wait_for (${what})` : 'wait_for';
    }
    case 'fork':
    case 'restore':
    case 'snapshot':
      return typeof params.name === 'string' ? `${method} '${params.name}'` : method;
    case 'command':
    case 'command_output':
      return typeof params.command === 'string' ? `${method} '${params.command}'` : method;
    default:
      return method;
  }
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

const FRAMES = ['|', '/', '-', '\\'];

/** One line on stderr, rewritten in place; only ever started when stderr is a terminal. */
export class Spinner {
  private readonly started = Date.now();
  private frame = 0;
  private progress = '';
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {
    this.timer = setInterval(() => this.draw(), 100);
    this.timer.unref();
    this.draw();
  }

  /** A progress frame from the daemon: shown after the elapsed time. */
  update(p: ProgressFrame): void {
    const total = p.total !== undefined ? `/${p.total}` : '';
    this.progress = `  ${p.progress}${total}${p.message ? ` ${p.message}` : ''}`;
    this.draw();
  }

  stop(): void {
    clearInterval(this.timer);
    this.out.write('\r\u001b[K');
  }

  private draw(): void {
    this.frame = (this.frame + 1) % FRAMES.length;
    const line = `${FRAMES[this.frame]} ${this.label}  ${seconds(Date.now() - this.started)}${this.progress}  (Ctrl-C cancels)`;
    // Wider than the terminal would wrap, and \r would then rewrite only the last row.
    const width = this.out.columns ? this.out.columns - 1 : line.length;
    this.out.write(`\r\u001b[K${line.slice(0, width)}`);
  }
}
