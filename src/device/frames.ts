/**
 * The native socket framing (dispatch notes §2.1): a 4-byte big-endian length, then that many
 * bytes of UTF-8 JSON. Pure: no I/O, no timers. The length is checked against the cap before a
 * single body byte is stored, and the body buffer grows with what actually arrives, so a
 * header that promises 10 MiB and sends nothing costs nothing.
 */

export const MAX_FRAME_BYTES = 10 * 1024 * 1024;
const HEADER_BYTES = 4;
const FIRST_CHUNK_BYTES = 4 * 1024;

export type FrameErrorKind = 'too_large' | 'invalid_utf8' | 'invalid_json';

export class FrameError extends Error {
  override readonly name = 'FrameError';
  constructor(
    readonly kind: FrameErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** JSON-encodes one message into a frame. Throws FrameError('too_large') past the cap. */
export function encodeFrame(message: unknown, maxBytes = MAX_FRAME_BYTES): Buffer {
  const body = JSON.stringify(message);
  const length = Buffer.byteLength(body, 'utf8');
  if (length > maxBytes) throw new FrameError('too_large', tooLarge(length, maxBytes));
  const frame = Buffer.allocUnsafe(HEADER_BYTES + length);
  frame.writeUInt32BE(length, 0);
  frame.write(body, HEADER_BYTES, 'utf8');
  return frame;
}

export interface DecodeResult {
  /** Parsed JSON values of every frame completed by this chunk, in order. */
  messages: unknown[];
  /** Set once a frame is bad; the stream cannot be trusted after it, so nothing more decodes. */
  error?: FrameError;
}

/** Incremental decoder: feed it chunks split anywhere; it returns whole messages. */
export class FrameDecoder {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerFill = 0;
  /** Body length of the frame in progress, once its header is complete. */
  private expected: number | undefined;
  private body: Buffer = Buffer.alloc(0);
  private bodyFill = 0;
  private failure: FrameError | undefined;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly maxBytes = MAX_FRAME_BYTES) {}

  /** True while part of a frame has arrived and the rest has not. */
  get midFrame(): boolean {
    return this.headerFill > 0 || this.expected !== undefined;
  }

  /** Bytes held for the frame in progress (the header included). */
  get buffered(): number {
    return this.headerFill + this.bodyFill;
  }

  push(chunk: Uint8Array): DecodeResult {
    const messages: unknown[] = [];
    if (this.failure) return { messages, error: this.failure };
    let offset = 0;
    while (offset < chunk.length) {
      if (this.expected === undefined) {
        const take = Math.min(HEADER_BYTES - this.headerFill, chunk.length - offset);
        this.header.set(chunk.subarray(offset, offset + take), this.headerFill);
        this.headerFill += take;
        offset += take;
        if (this.headerFill < HEADER_BYTES) break;
        const length = this.header.readUInt32BE(0);
        if (length > this.maxBytes)
          return this.fail(messages, new FrameError('too_large', tooLarge(length, this.maxBytes)));
        this.expected = length;
        this.body = Buffer.allocUnsafe(Math.min(length, FIRST_CHUNK_BYTES));
        this.bodyFill = 0;
      }
      const expected = this.expected;
      const take = Math.min(expected - this.bodyFill, chunk.length - offset);
      if (this.bodyFill + take > this.body.length) this.grow(expected, this.bodyFill + take);
      this.body.set(chunk.subarray(offset, offset + take), this.bodyFill);
      this.bodyFill += take;
      offset += take;
      if (this.bodyFill < expected) break;
      const parsed = this.parseBody(this.body.subarray(0, expected));
      this.expected = undefined;
      this.headerFill = 0;
      this.body = Buffer.alloc(0);
      this.bodyFill = 0;
      if (parsed instanceof FrameError) return this.fail(messages, parsed);
      messages.push(parsed.value);
    }
    return { messages };
  }

  /** Doubles the body buffer (at most up to the frame's length): copies stay linear overall. */
  private grow(expected: number, needed: number): void {
    const size = Math.min(expected, Math.max(needed, this.body.length * 2));
    const bigger = Buffer.allocUnsafe(size);
    this.body.copy(bigger, 0, 0, this.bodyFill);
    this.body = bigger;
  }

  private parseBody(bytes: Uint8Array): { value: unknown } | FrameError {
    let text: string;
    try {
      text = this.utf8.decode(bytes);
    } catch {
      return new FrameError('invalid_utf8', 'frame body is not valid UTF-8');
    }
    try {
      return { value: JSON.parse(text) };
    } catch (error) {
      const position = /position (\d+)/.exec((error as Error).message)?.[1];
      return new FrameError(
        'invalid_json',
        `frame body is not valid JSON${position ? ` (at character ${position})` : text.length === 0 ? ' (empty)' : ''}`,
      );
    }
  }

  private fail(messages: unknown[], error: FrameError): DecodeResult {
    this.failure = error;
    this.expected = undefined;
    this.headerFill = 0;
    this.body = Buffer.alloc(0);
    this.bodyFill = 0;
    return { messages, error };
  }
}

function tooLarge(length: number, maxBytes: number): string {
  return `frame of ${length} bytes is over the ${maxBytes}-byte limit`;
}
