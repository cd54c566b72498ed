/**
 * Test fixture: a virtual board, a real device session over its in-process REPL port, and the
 * real dispatch core over it, so group tests run a tool exactly as a client's call does: through
 * runTool (argument check, deadline, board held for the call, output check, rendering), minus MCP.
 */
import { CAPABILITIES } from '../../src/core/capabilities.js';
import { createDispatcher, type Dispatcher } from '../../src/core/dispatcher.js';
import { ToolError } from '../../src/core/errors.js';
import type { ToolResult } from '../../src/core/render.js';
import { runTool } from '../../src/core/runTool.js';
import type { AnyTool } from '../../src/core/toolDefinition.js';
import { ToolSubsystem } from '../../src/core/toolSubsystem.js';
import { Board, sessionJobs } from '../../src/device/board.js';
import { streamLink } from '../../src/device/link.js';
import { DeviceSession } from '../../src/device/session.js';
import { SimBoard, type SimBoardOptions } from '../../src/sim/index.js';
import { boardHelper } from '../../src/tools/index.js';
import { type SafetyPolicy, safetyPolicy } from '../../src/tools/safety.js';
import type { ToolContext, ToolImage } from '../../src/tools/tool.js';

/** What a test may give a call: the caller's cancellation, confirm and progress, and who calls. */
export type CallExtras = Partial<Pick<ToolContext, 'signal' | 'confirm' | 'progress'>> & {
  caller?: string;
  safety?: SafetyPolicy;
  /** Another view of the same board (one that records or alters what is sent: interceptBoard). */
  board?: Board;
};

export interface ToolHarness {
  board: SimBoard;
  session: DeviceSession;
  client: Board;
  /**
   * Calls the tool through runTool; returns its JSON result and pictures, or throws the failure a
   * client would see as a ToolError (code, message, the rest as details; -32602 as an RpcError).
   */
  run<T = Record<string, unknown>>(
    tool: AnyTool,
    args?: unknown,
    extra?: CallExtras,
  ): Promise<{ result: T; images: ToolImage[]; progress: number[]; rendered: ToolResult }>;
  /** Runs Python on the board directly (to set up or inspect state behind a tool's back). */
  python<T = unknown>(expression: string): Promise<T>;
  close(): Promise<void>;
}

let counter = 0;
const EVERYTHING = new Set(CAPABILITIES);

export async function startToolHarness(options: SimBoardOptions = {}): Promise<ToolHarness> {
  const board = await SimBoard.start(options);
  const link = streamLink(`harness-${process.pid}-${counter++}`, {
    connect: () => board.port('repl'),
    release: () => {},
  });
  const session = new DeviceSession(link, { reconnectDelayMs: { initial: 50, max: 300 } });
  const client = new Board(sessionJobs(session, boardHelper));
  const dispatchers = new Map<string, Dispatcher>();
  const ids = new WeakMap<object, number>();
  let nextId = 0;
  const keyOf = (thing: object) => {
    if (!ids.has(thing)) ids.set(thing, nextId++);
    return ids.get(thing);
  };
  const dispatcherOf = (tool: AnyTool, extra: CallExtras): Dispatcher => {
    const board = extra.board ?? client;
    const key = `${keyOf(tool)}|${keyOf(board)}|${extra.safety ? JSON.stringify(extra.safety) : ''}`;
    let dispatcher = dispatchers.get(key);
    if (!dispatcher) {
      dispatcher = createDispatcher({
        root: new ToolSubsystem({
          name: 'local',
          tools: [tool],
          board,
          safety: extra.safety ?? safetyPolicy(),
        }),
      });
      dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  };
  return {
    board,
    session,
    client,
    async run(tool, args = {}, extra = {}) {
      const progress: number[] = [];
      const rendered = await runTool(dispatcherOf(tool, extra), {
        name: tool.name,
        arguments: args,
        caller: { id: extra.caller ?? 'harness', granted: EVERYTHING },
        ...(extra.signal ? { signal: extra.signal } : {}),
        ...(extra.confirm ? { confirm: extra.confirm } : {}),
        onProgress: (value, total, message) => {
          progress.push(value);
          extra.progress?.(value, total, message);
        },
      });
      const [first, ...rest] = rendered.content;
      if (rendered.isError) {
        const { code, message, retryable, ...details } = JSON.parse(
          first?.type === 'text' ? first.text : '{}',
        );
        throw new ToolError(String(code), String(message), { retryable: retryable === true, details });
      }
      const images = rest.flatMap((block) =>
        block.type === 'image' ? [{ mimeType: 'image/png' as const, data: block.data }] : [],
      );
      return { result: rendered.structuredContent as never, images, progress, rendered };
    },
    python: (expression) => session.call(expression),
    async close() {
      for (const dispatcher of dispatchers.values()) dispatcher.close();
      await session.close();
      await board.stop();
    },
  };
}
