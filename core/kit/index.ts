/**
 * 'mcbridge/kit': helpers any plugin may use (the built-in ones use nothing else): zod field
 * builders for mod text and event filters, event scanning, small value readers and the mod's
 * general verb declarations. A family of plugins keeps its own helpers in its plugin (the snapshot
 * family: plugins/snapshot/kit.ts).
 */
export { commandRefusal, commandRefusalFields, refusalOf } from './command-refusal.js';
export { sortedCounts } from './counts.js';
export {
  compactEvent,
  cursorInput,
  EventCounter,
  eventFilterFields,
  eventMatcher,
  eventSender,
  eventText,
  hasEventFilter,
  type EventFilterInput,
} from './event-filter.js';
export { conditionHolds, pathCondition, readPath, type PathCondition } from './condition.js';
export { commandText, firstSentence, javaDouble, lineText } from './text.js';
export { modAck, modReply, outputLines } from './replies.js';
export { isObject, num, str } from './values.js';
export { CMD_VERB, requestIdParam, STATE_VERB } from './verbs.js';
// Bounding JSON before it is parsed: a recording or a reply nested deeper than this is refused.
export { exceedsJsonDepth, MAX_MOD_LINE_DEPTH } from '../util/json-depth.js';
export { readOwnFile, StateFile, writeFileAtomic, type StateFileOptions, type StateFileStatus } from '../util/state-file.js';
export { serverConsole, type ConsoleChunk, type ConsoleListener, type ServerConsole } from './server-console.js';
export { durationMs, launchSchema, type LaunchConfig, type LaunchCommandConfig, type LaunchSimConfig } from '../host/launch-schema.js';
export { mcbridgeCommand } from './cli-command.js';
