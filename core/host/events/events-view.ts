/** The event log as a plugin's context sees it: waits end with `signal`, followers also when `scope`'s call ends. */
import type { CallScope } from '../call-scope.js';
import type { EventsView } from '../plugin-api.js';
import type { EventLog, RecordedEvent } from './event-log.js';
import { followEvents } from './follow.js';

export function eventsView(log: EventLog, signal: AbortSignal, scope?: CallScope): EventsView {
  return {
    get streamId() {
      return log.streamId;
    },
    get lastSeq() {
      return log.lastSeq;
    },
    query: (q) => log.query(q),
    waitFor: (match: (e: RecordedEvent) => boolean, options = {}) => log.waitFor(match, { ...options, signal }),
    stats: () => log.stats(),
    emit: (type, fields = {}) => log.record({ ...fields, type, origin: 'mcbridge' }),
    follow: (options) => followEvents(log, options, scope ? [signal, scope.endSignal] : [signal]),
    scan: (since, visit) => {
      let going = true;
      return log.query({
        since,
        limit: 1,
        filter: (e) => {
          if (going && visit(e) === false) going = false;
          return false;
        },
      });
    },
  };
}
