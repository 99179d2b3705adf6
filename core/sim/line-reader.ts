/**
 * Request framing as Java's `BufferedReader.readLine` does it: a line ends at `\n`, `\r` or
 * `\r\n` (even when the `\r` and `\n` arrive in different chunks), and invalid UTF-8 becomes
 * U+FFFD instead of an error.
 */
import { StringDecoder } from 'node:string_decoder';

export class JavaLineReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private skipNextLf = false;

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    this.feed(this.decoder.write(chunk));
  }

  /** End of stream: readLine returns a last unterminated line too. */
  end(): void {
    this.feed(this.decoder.end());
    if (this.pending !== '') {
      const line = this.pending;
      this.pending = '';
      this.onLine(line);
    }
  }

  private feed(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (this.skipNextLf) {
        this.skipNextLf = false;
        if (code === 10) {
          start = i + 1;
          continue;
        }
      }
      if (code !== 10 && code !== 13) continue;
      const line = this.pending + text.slice(start, i);
      this.pending = '';
      start = i + 1;
      this.skipNextLf = code === 13;
      this.onLine(line);
    }
    this.pending += text.slice(start);
  }
}
