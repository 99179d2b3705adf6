/**
 * 'mcbridge/kit': helpers any plugin may use (the built-in ones use nothing else): zod field
 * builders for mod text and event filters, event scanning, and small value readers.
 */
export { sortedCounts } from './counts.js';
export {
  compactEvent, cursorInput, EventCounter, eventFilterFields, eventMatcher, eventSender, eventText, hasEventFilter, scanEvents,
  type EventFilterInput,
} from './event-filter.js';
export { commandText, firstSentence, javaDouble, lineText } from './text.js';
export { modAck, modReply } from './replies.js';
export { isObject, num, str } from './values.js';
export { StateFile, writeFileAtomic, type StateFileOptions, type StateFileStatus } from './state-file.js';
export {
  dimensionId, orderHash, radiusText, readSnapshot, SNAPSHOT_PROTOCOL, SNAPSHOT_VERBS, SNAPSHOT_WORKFLOW_VERBS, SnapshotFileError, snapshotLine,
  snapshotNameProblem, type SnapshotEntity, type SnapshotFiles, type SnapshotIssue, type SnapshotMeta,
} from './snapshot-files.js';
export {
  checkSnapshotFiles, snapshotAck, snapshotDimension, snapshotFileCheck, snapshotName, snapshotRadius, snapshotResult, type SnapshotResult,
} from './snapshot-ack.js';
export {
  outputLines, savedTheGame, setTickState, setTickStateWithRetry, TICK_RETRY_PATIENCE_MS, tickStateOf, withinCleanupBudget,
  type SendLine, type TickState,
} from './tick-state.js';
