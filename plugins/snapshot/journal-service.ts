/**
 * The snapshot plugin's service: each time the daemon connects to the game (its first connect
 * after start included), undo what a killed fork or restore left (./recovery.ts), and say so in
 * `status` under `snapshot:journal`.
 */
import type { Service } from 'mcbridge';
import { journalFile } from './journal.js';
import { recoverJournal, type RecoveryReport } from './recovery.js';
import { gameOf, isRunning } from './world-op.js';

/**
 * How often the link is looked at for a new connection. A status read builds the manifest, so
 * not too often; a second is soon enough after a daemon start or a reconnect.
 */
const LOOK_MS = 1_000;
/** Reports kept for `status`. */
const KEEP = 8;

export function journalService(): Service {
  let reports: RecoveryReport[] = [];
  let lastError: string | null = null;
  return {
    name: 'journal',
    start(ctx) {
      reports = [];
      let seen: number | null = null;
      let busy = false;
      const look = async () => {
        const status = ctx.host.status();
        const connectedAt = status.link.connectedAt;
        if (busy || !status.connected || connectedAt === null || connectedAt === seen) return;
        busy = true;
        try {
          const file = journalFile(ctx.configDir, gameOf(ctx));
          // A journal this process still writes belongs to an operation under way.
          const report = isRunning(file) ? null : await recoverJournal(file, ctx);
          if (report) reports = [report, ...reports].slice(0, KEEP);
          seen = connectedAt;
          lastError = null;
        } catch (err) {
          lastError = (err as Error).message; // tried again at the next look
          ctx.log.warn({ err: lastError }, 'undoing what a killed fork or restore left failed; trying again');
        } finally {
          busy = false;
        }
      };
      const timer = setInterval(() => void look(), LOOK_MS);
      timer.unref();
      return () => clearInterval(timer);
    },
    status: () => ({ recovered: reports, ...(lastError ? { lastError } : {}) }),
  };
}
