/**
 * stdio transport: stdout carries JSON-RPC only, logs go to stderr. The SDK's entry picks the era
 * from the connection's first message (`initialize`: 2025; a request with the 2026-07-28 `_meta`
 * or `server/discover`: modern) and makes the server for it. On stdin EOF the SDK would abort the
 * calls in flight, so the SDK never sees EOF: we let those calls finish and their answers reach
 * stdout, then shut down. SIGINT/SIGTERM stop at once.
 */
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio as serveEra } from '@modelcontextprotocol/server/stdio';
import { isModernProtocol } from '../contract/index.js';
import { plainCall } from './fastLane.js';
import { keepLegacyCodes } from './legacyCodes.js';
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

/** Makes the server of the connection, for the era its client speaks. */
export type StdioServerFactory = (era: 'legacy' | 'modern') => McpServerHandle;

export async function serveStdio(createServer: StdioServerFactory, options: StdioOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  // A client that probes with server/discover and then says initialize gets a second server.
  const handles: McpServerHandle[] = [];
  // A plain tools/call, once the connection is a 2025 one, skips the SDK's per-request machinery.
  // Its answer goes straight to the wire: the SDK's channel in between only settles the requests
  // it was given, and checks every message's shape to know which. The wire's own send carries the
  // 2025 error codes (keepLegacyCodes patches the transport itself, below). Once the wire is
  // closed (after the drain, or at a signal) an answer has nobody to go to.
  let wireClosed = false;
  const toWire = (answer: JSONRPCMessage) => (wireClosed ? Promise.resolve() : transport.send(answer));
  const fast = (message: unknown): boolean => {
    const call = plainCall(message);
    return call !== undefined && handles.at(-1)?.fast(call, {}, toWire) !== undefined;
  };
  const checked = checkedLines(input, (answer) => output.write(`${JSON.stringify(answer)}\n`), fast);
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
    wireClosed = true;
    await entry.close().catch(() => {});
    await Promise.all(handles.map((h) => h.close().catch(() => {})));
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
  const entry = serveEra(
    ({ era }) => {
      const handle = createServer(era);
      handles.push(handle);
      return handle.server;
    },
    {
      transport: keepLegacyCodes(
        transport,
        () => !isModernProtocol(handles.at(-1)?.server.getNegotiatedProtocolVersion()),
      ),
    },
  );
}

/**
 * The input with every line checked first: a line that is not JSON gets -32700, a request with
 * params the SDK would drop gets its error (precheck.ts), and neither reaches the SDK; nor does a
 * line `fast` takes (it parsed it already: parsing twice is half of a small call's cost).
 */
function checkedLines(
  input: NodeJS.ReadableStream,
  answer: (message: unknown) => void,
  fast: (message: unknown) => boolean,
): PassThrough {
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
    else if (!fast(message)) out.write(`${line}\n`);
  };
  input.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      take(pending.slice(0, at).replace(/\r$/, ''));
      pending = pending.slice(at + 1);
    }
  });
  // Never ended: the SDK would abort the calls in flight (stop() drains them first).
  input.on('end', () => take(pending));
  return out;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
