/**
 * stdio transport: stdout carries JSON-RPC only, logs go to stderr. The SDK's entry picks the era
 * from the connection's first message (`initialize`: 2025; a request with the 2026-07-28 `_meta`
 * or `server/discover`: modern) and makes the server for it. On stdin EOF the SDK would abort the
 * calls in flight, so the SDK never sees EOF: we let those calls finish and their answers reach
 * stdout, then shut down. SIGINT/SIGTERM stop at once.
 *
 * Every line is checked before the SDK reads it (the SDK drops what it cannot parse without an
 * answer): a line that is not JSON gets -32700, a request with params the SDK would drop or answer
 * with a schema dump gets -32602 (precheck.ts). A line may be as long as the SDK allows one
 * message (10 MiB, `LineReader` below); a longer one ends the connection, as the SDK's own reader
 * ends it.
 */
import { PassThrough } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio as serveEra } from '@modelcontextprotocol/server/stdio';
import type { Era } from '../core/era.js';
import { keepLegacyCodes } from './legacyCodes.js';
import { parseErrorOf, precheck } from './precheck.js';
import type { McpServerHandle } from './server.js';

export interface StdioOptions {
  /** Releases everything else (board session, simulator); called once, before exit. */
  shutdown(): Promise<void>;
  /** Longest wait for in-flight calls after stdin closes. Default 60 s. */
  drainMs?: number;
  /** Longest line taken from stdin, in bytes. Default the SDK's (10 MiB). */
  maxLine?: number;
  input?: NodeJS.ReadableStream & { on(event: string, listener: () => void): unknown };
  output?: NodeJS.WritableStream;
  exit?: (code: number) => void;
}

/** Makes the server of the connection, for the era its client speaks. */
export type StdioServerFactory = (era: Era) => McpServerHandle;

export async function serveStdio(createServer: StdioServerFactory, options: StdioOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  // A client that probes with server/discover and then says initialize gets a second server.
  const handles: McpServerHandle[] = [];
  const answer = (message: unknown) => output.write(`${JSON.stringify(message)}\n`);
  const checked = new PassThrough();
  const take = (line: string) => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      answer(parseErrorOf());
      return;
    }
    const early = precheck(message);
    if (early) answer(early);
    else checked.write(`${line}\n`);
  };
  const maxLine = options.maxLine ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  const reader = new LineReader(maxLine);
  const transport = new StdioServerTransport(
    checked as unknown as typeof process.stdin,
    output as typeof process.stdout,
  );
  let stopping = false;
  const stop = async (drain: boolean, code: number) => {
    if (stopping) return;
    stopping = true;
    if (drain) {
      await Promise.race([Promise.all(handles.map((h) => h.idle())), delay(options.drainMs ?? 60_000)]);
      await delay(10); // the last answer is encoded and sent right after its handler returns
    }
    await entry.close().catch(() => {});
    await Promise.all(handles.map((h) => h.close().catch(() => {})));
    await options.shutdown().catch((error: unknown) => {
      process.stderr.write(
        `jumperless-mcp: shutdown: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    });
    output.write('', () => exit(code));
  };
  input.on('data', (chunk: Buffer | string) => {
    const { lines, overflow } = reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    for (const line of lines) take(line);
    if (!overflow || stopping) return;
    process.stderr.write(
      `jumperless-mcp: a line on stdin is longer than ${maxLine} bytes; closing the connection\n`,
    );
    void stop(false, 1);
  });
  // The client went away mid-answer (EPIPE): nobody is left to answer, so stop quietly.
  output.on('error', () => void stop(false, 0));
  input.on('end', () => {
    take(reader.end());
    void stop(true, 0);
  });
  input.on('close', () => void stop(true, 0));
  process.once('SIGINT', () => void stop(false, 130));
  process.once('SIGTERM', () => void stop(false, 143));
  const entry = serveEra(
    ({ era }) => {
      const handle = createServer(era);
      handles.push(handle);
      return handle.server;
    },
    {
      transport: keepLegacyCodes(transport, () => handles.at(-1)?.era === 'legacy'),
    },
  );
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/*
 * Stdin split into lines, each at most `maxLine` bytes: the SDK's own cap for one stdio message
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
