/**
 * Splits stdin into lines, each at most `maxLine` bytes: the SDK's own cap for one stdio message
 * (its `STDIO_DEFAULT_MAX_BUFFER_SIZE`, 10 MiB), enforced before the bytes reach its reader. A line
 * that grows past it is dropped whole, newline or not, and the reader says so once (`overflow`):
 * the connection then ends, as the SDK's transport ends it. Pure: no timers, no I/O.
 */
export interface Pushed {
  /** Complete lines, without their `\n` (a `\r` before it goes too). */
  lines: string[];
  /** True once a line grew past the cap: nothing more is read. */
  overflow: boolean;
}

export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private overflowed = false;

  constructor(private readonly maxLine: number) {}

  push(chunk: Buffer): Pushed {
    const lines: string[] = [];
    if (this.overflowed) return { lines, overflow: true };
    let from = 0;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, from)) {
      if (!this.take(chunk.subarray(from, at))) return { lines, overflow: true };
      lines.push(this.line());
      from = at + 1;
    }
    if (from < chunk.length && !this.take(chunk.subarray(from))) return { lines, overflow: true };
    return { lines, overflow: false };
  }

  /** The last line when the input ends without a newline ('' when there is none). */
  end(): string {
    return this.overflowed ? '' : this.line();
  }

  private take(part: Buffer): boolean {
    this.size += part.length;
    if (this.size > this.maxLine) {
      this.overflowed = true;
      this.parts = [];
      this.size = 0;
      return false;
    }
    if (part.length > 0) this.parts.push(part);
    return true;
  }

  private line(): string {
    const text = (this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts)).toString(
      'utf8',
    );
    this.parts = [];
    this.size = 0;
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }
}
