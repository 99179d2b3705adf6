/**
 * The mod's general verbs, declared once: every plugin that sends `CMD` or
 * `STATE` spreads these, and the host refuses two different declarations of one verb.
 */
export const CMD_VERB = { CMD: { replies: ['cmd_ack'], requires: ['command'] } };
export const STATE_VERB = { STATE: { replies: ['state'], requires: ['state'] } };
