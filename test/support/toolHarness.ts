/**
 * Test fixture: a virtual board, a real device session over its in-process REPL port, and a tool
 * context, so group tests run tools exactly as dispatch will (minus MCP).
 */
import { streamLink } from '../../src/device/link.js';
import { DeviceSession } from '../../src/device/session.js';
import { SimBoard, type SimBoardOptions } from '../../src/sim/index.js';
import { type BoardClient, callBoard, createBoardClient } from '../../src/tools/boardClient.js';
import { boardHelper } from '../../src/tools/index.js';
import { safetyPolicy } from '../../src/tools/safety.js';
import type { AnyTool, ToolContext, ToolImage } from '../../src/tools/tool.js';

export interface ToolHarness {
  board: SimBoard;
  session: DeviceSession;
  client: BoardClient;
  /** Validates args with the tool's schema, runs it, validates the result; returns it and its images. */
  run<T = Record<string, unknown>>(
    tool: AnyTool,
    args?: unknown,
    extra?: Partial<ToolContext>,
  ): Promise<{ result: T; images: ToolImage[]; progress: number[] }>;
  /** Runs Python on the board directly (to set up or inspect state behind a tool's back). */
  python<T = unknown>(expression: string): Promise<T>;
  close(): Promise<void>;
}

let counter = 0;

export async function startToolHarness(options: SimBoardOptions = {}): Promise<ToolHarness> {
  const board = await SimBoard.start(options);
  const link = streamLink(`harness-${process.pid}-${counter++}`, {
    connect: () => board.port('repl'),
    release: () => {},
  });
  const session = new DeviceSession(link, { reconnectDelayMs: { initial: 50, max: 300 } });
  const client = createBoardClient(session, boardHelper);
  return {
    board,
    session,
    client,
    async run(tool, args = {}, extra = {}) {
      const images: ToolImage[] = [];
      const progress: number[] = [];
      const controller = new AbortController();
      const signal = extra.signal ?? controller.signal;
      // As runTool holds the board for a call (atomic unless the tool says otherwise).
      const held = callBoard(client, { signal, owner: 'harness', atomic: tool.atomic !== false });
      const context: ToolContext = {
        signal,
        progress: (value) => progress.push(value),
        attachImage: (image) => images.push(image),
        board: held.board,
        safety: safetyPolicy(),
        ...extra,
      };
      try {
        const result = await tool.handle(tool.input.parse(args), context);
        return { result: tool.output.parse(result), images, progress };
      } finally {
        held.end();
      }
    },
    python: (expression) => session.call(expression),
    async close() {
      await session.close();
      await board.stop();
    },
  };
}
