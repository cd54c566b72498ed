/**
 * stdio transport (MCP 2025-06-18 transports): stdout carries JSON-RPC only, logs go to stderr.
 * The SDK does not notice stdin closing (typescript-sdk #2002), so we do: on EOF we let in-flight
 * calls finish and their answers reach stdout, then shut down. SIGINT/SIGTERM stop at once.
 */
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseErrorOf, precheck } from './precheck.js';
import type { McpServerHandle } from './server.js';

export interface StdioOptions {
  /** Releases everything else (board session, simulator); called once, before exit. */
  shutdown(): Promise<void>;
  /** Longest wait for in-flight calls after stdin closes. Default 60 s. */
  drainMs?: number;
  input?: NodeJS.ReadableStream & { on(event: string, listener: () => void): unknown };
  output?: NodeJS.WritableStream;
  exit?: (code: number) => void;
}

export async function serveStdio(handle: McpServerHandle, options: StdioOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const checked = checkedLines(input, (answer) => output.write(`${JSON.stringify(answer)}\n`));
  const transport = new StdioServerTransport(
    checked as unknown as typeof process.stdin,
    output as typeof process.stdout,
  );
  let stopping = false;
  const stop = async (drain: boolean, code: number) => {
    if (stopping) return;
    stopping = true;
    if (drain) {
      await Promise.race([handle.idle(), delay(options.drainMs ?? 60_000)]);
      await delay(0); // the last answer is sent right after its handler returns
    }
    await handle.close().catch(() => {});
    await options.shutdown().catch((error: unknown) => {
      process.stderr.write(
        `jumperless-mcp: shutdown: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    });
    output.write('', () => exit(code));
  };
  // The client went away mid-answer (EPIPE): nobody is left to answer, so stop quietly.
  output.on('error', () => void stop(false, 0));
  input.on('end', () => void stop(true, 0));
  input.on('close', () => void stop(true, 0));
  process.once('SIGINT', () => void stop(false, 130));
  process.once('SIGTERM', () => void stop(false, 143));
  await handle.server.connect(transport);
}

/**
 * The input with every line checked first: a line that is not JSON gets -32700, a request with
 * params the SDK would drop gets its error (precheck.ts), and neither reaches the SDK.
 */
function checkedLines(input: NodeJS.ReadableStream, answer: (message: unknown) => void): PassThrough {
  const out = new PassThrough();
  let pending = '';
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
    else out.write(`${line}\n`);
  };
  input.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      take(pending.slice(0, at).replace(/\r$/, ''));
      pending = pending.slice(at + 1);
    }
  });
  input.on('end', () => {
    take(pending);
    out.end();
  });
  return out;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
