/** The first sentence of a tool description: the one-line summary lists show. */
export function firstSentence(text: string): string {
  const end = text.search(/[.](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}
