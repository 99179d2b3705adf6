/**
 * The snapshot family's entry for the plugins built on it (fork, restore): the snapshot file
 * format, the SNAPSHOT ack reader and verbs, the one tick-freeze guard, and the world journal
 * with its one-at-a-time rule. A plugin imports it as `../snapshot/kit.js`, the way a published
 * plugin would import `mcbridge-plugin-snapshot/kit` (docs/plugins.md, "Depending on another plugin").
 */
export {
  dimensionId,
  FORK_MANIFEST,
  orderHash,
  radiusText,
  readSnapshot,
  SNAPSHOT_PROTOCOL,
  SNAPSHOT_VERBS,
  SNAPSHOT_WORKFLOW_VERBS,
  SnapshotFileError,
  snapshotLine,
  snapshotNameProblem,
  type SnapshotEntity,
  type SnapshotFiles,
  type SnapshotIssue,
  type SnapshotMeta,
} from './files.js';
export {
  checkSnapshotFiles,
  snapshotAck,
  snapshotDimension,
  snapshotFileCheck,
  snapshotName,
  snapshotRadius,
  snapshotResult,
  type SnapshotResult,
} from './ack.js';
export {
  queryTickState,
  savedTheGame,
  setTickState,
  setTickStateWithRetry,
  TICK_RETRY_PATIENCE_MS,
  tickStateOf,
  withinCleanupBudget,
  type SendLine,
  type TickState,
} from './tick-state.js';
export { TickFreeze, type FreezeOptions } from './freeze.js';
export { journalFile, readJournal, WorldJournal, type JournalChange, type JournalRecord } from './journal.js';
export { gameOf, worldOperation } from './world-op.js';
