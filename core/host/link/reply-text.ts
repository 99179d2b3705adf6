/**
 * The JSON text each reply delivered to a request was parsed from, by the reply object's
 * identity: a tool that passes the mod's reply through untouched (`passthrough`) is answered
 * with the mod's own text, spliced into the response frame, instead of encoding the object again.
 * Held weakly: a reply nobody keeps takes its text with it.
 */
const texts = new WeakMap<object, string>();

export function keepReplyText(reply: object, line: string): void {
  // A raw CR between tokens is valid JSON but would split the line for some readers; such a
  // reply is encoded again instead.
  if (line.indexOf('\r') === -1) texts.set(reply, line);
}

/** The mod's text for this reply object, if it is one the link delivered. */
export function replyText(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}
