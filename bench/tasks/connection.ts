/**
 * Two ways to reach a board with the tools, one interface for the task bench: in this process (a
 * virtual board with a scenario's parts, the real dispatch core over a real device session: what
 * the replay and `npm run bench:tasks` use), and over MCP to a running server (what checks a model
 * trial's board). Either way a call answers what a client sees: the JSON text a model reads, whether
 * it was a tool error, and how many bytes and pictures it held.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CAPABILITIES } from '../../src/core/capabilities.js';
import { createDispatcher } from '../../src/core/dispatcher.js';
import type { ToolResult } from '../../src/core/render.js';
import { runTool } from '../../src/core/runTool.js';
import { ToolSubsystem } from '../../src/core/toolSubsystem.js';
import { Board, sessionJobs } from '../../src/device/board.js';
import { streamLink } from '../../src/device/link.js';
import { DeviceSession } from '../../src/device/session.js';
import { SimBoard } from '../../src/sim/index.js';
import { boardHelper, catalog } from '../../src/tools/index.js';

export type Args = Record<string, unknown>;

/** One tool call as a client saw it. */
export interface Outcome {
  tool: string;
  args: Args;
  isError: boolean;
  /** The result object (for an error: code, message, retryable and details). */
  result: Record<string, unknown>;
  /** Bytes of the text a model reads (the JSON), pictures not counted. */
  bytes: number;
  images: number;
}

export interface Connection {
  call(tool: string, args?: Args): Promise<Outcome>;
  close(): Promise<void>;
}

function outcomeOf(tool: string, args: Args, rendered: Pick<ToolResult, 'content' | 'isError'>): Outcome {
  const blocks = rendered.content as Array<{ type: string; text?: string }>;
  const text = blocks.find((b) => b.type === 'text')?.text ?? '{}';
  let result: Record<string, unknown>;
  try {
    result = JSON.parse(text) as Record<string, unknown>;
  } catch {
    result = { text };
  }
  return {
    tool,
    args,
    isError: rendered.isError === true,
    result,
    bytes: Buffer.byteLength(text),
    images: blocks.filter((b) => b.type === 'image').length,
  };
}

let boards = 0;

/** A virtual board with `partsFileText` on it, and every tool on it with every capability. */
export async function virtualConnection(options: {
  partsFileText?: string;
  noiseSeed?: number;
}): Promise<Connection & { sim: SimBoard }> {
  const sim = await SimBoard.start({
    ...(options.partsFileText === undefined ? {} : { partsFileText: options.partsFileText }),
    ...(options.noiseSeed === undefined ? {} : { noiseSeed: options.noiseSeed }),
  });
  const link = streamLink(`tasks-${process.pid}-${boards++}`, {
    connect: () => sim.port('repl'),
    release: () => {},
  });
  const session = new DeviceSession(link);
  const board = new Board(sessionJobs(session, boardHelper));
  const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog, board }) });
  const caller = { id: 'task-bench', granted: new Set(CAPABILITIES) };
  return {
    sim,
    async call(tool, args = {}) {
      return outcomeOf(tool, args, await runTool(dispatcher, { name: tool, arguments: args, caller }));
    },
    async close() {
      dispatcher.close();
      await session.close();
      await sim.stop();
    },
  };
}

/** A running server, over Streamable HTTP, as any MCP client reaches it. */
export async function mcpConnection(url: string): Promise<Connection> {
  const client = new Client({ name: 'jumperless-task-bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    async call(tool, args = {}) {
      const result = await client.callTool({ name: tool, arguments: args });
      return outcomeOf(tool, args, result as Pick<ToolResult, 'content' | 'isError'>);
    },
    close: () => client.close(),
  };
}
