/**
 * World-changing operations (fork, a restore's apply) on one game run one at a time: a second
 * one is refused with `busy`, naming the first (docs/decisions.md, "World-changing operations
 * are refused while one runs"). Each runs with a journal (./journal.ts) that outlives a killed daemon.
 */
import { McbridgeError, type ToolContext } from 'mcbridge';
import { journalFile, readJournal, WorldJournal, type JournalRecord } from './journal.js';

interface Running {
  op: JournalRecord['op'];
  startedAt: number;
}

/** Per journal file (one per game): the operation this process runs on that game now. */
const running = new Map<string, Running>();

/** `host:port` of the game's mod: what a journal is kept per. */
export function gameOf(ctx: Pick<ToolContext, 'host'>): string {
  const { mod } = ctx.host.status();
  return `${mod.host}:${mod.port ?? 'unknown'}`;
}

/** Whether this process runs an operation whose journal is `file` (recovery leaves that one alone). */
export const isRunning = (file: string): boolean => running.has(file);

/**
 * Run `body` as the only world-changing operation on this game, with a journal. The lock and the
 * journal's end are deferred first, so they come after every clean-up the body defers (newest first).
 */
export async function worldOperation<T>(ctx: ToolContext, op: JournalRecord['op'], body: (journal: WorldJournal) => Promise<T>): Promise<T> {
  const game = gameOf(ctx);
  const file = journalFile(ctx.configDir, game);
  const first = running.get(file);
  if (first) {
    const seconds = ((Date.now() - first.startedAt) / 1000).toFixed(1);
    throw new McbridgeError(
      'busy',
      `a ${first.op} is changing this game (${game}) since ${seconds} s ago; one world-changing operation runs at a time. ` + `Nothing was changed: retry when the ${first.op} has ended`,
      { running: { op: first.op, startedAt: first.startedAt }, game },
    );
  }
  running.set(file, { op, startedAt: Date.now() });
  let journal: WorldJournal;
  try {
    const left = await readJournal(file);
    if (left !== null) {
      const what = 'record' in left ? `a ${left.record.op} by process ${left.record.pid} that did not finish` : `an unreadable one: ${left.problem}`;
      throw new McbridgeError(
        'busy',
        `the world journal ${file} holds ${what}, not yet undone (see \`status\`, section snapshot:journal). ` +
          'It is undone when the daemon next connects to the game; if it cannot be, put the game back by hand and delete that file',
        { file, game },
      );
    }
    journal = await WorldJournal.begin(file, op, game);
  } catch (err) {
    running.delete(file);
    throw err;
  }
  ctx.defer(async () => {
    try {
      await journal.end();
    } finally {
      running.delete(file);
    }
  });
  return body(journal);
}
