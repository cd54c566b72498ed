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
import { APPS_EXTENSION } from '../../src/core/listTools.js';
import type { ToolResult } from '../../src/core/render.js';
import { runTool } from '../../src/core/runTool.js';
import { ToolSubsystem } from '../../src/core/toolSubsystem.js';
import { Board, sessionJobs } from '../../src/device/board.js';
import { streamLink } from '../../src/device/link.js';
import { DeviceSession } from '../../src/device/session.js';
import { SimBoard } from '../../src/sim/index.js';
import { boardHelper, catalog } from '../../src/tools/index.js';
import { APP_MIME_TYPE } from '../../src/tools/viewPage.js';

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
  /** `as`: made by another person at the board (a caller of their own), not the one speaking. */
  call(tool: string, args?: Args, as?: string): Promise<Outcome>;
  /**
   * The name a lease taken by these calls is held under (the person's, or `as`'s), as the board's
   * lease and its refusals show it; undefined when this connection cannot know it.
   */
  holder(as?: string): string | undefined;
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

/**
 * A client that renders the board's MCP App and cannot elicit, with the person at the board
 * answering every hazard question in the app's form (`yes` or `no`) as soon as it shows: the
 * call's `confirmation_pending` result is what the model sees, the answer waits for its retry.
 */
export type AppAnswer = 'yes' | 'no';

/** The question a call's result put to the person in the board app, if it did. */
function pendingQuestion(o: Outcome): string | undefined {
  const question = o.result.question as { id?: unknown } | undefined;
  return o.isError && o.result.code === 'confirmation_pending' && typeof question?.id === 'string'
    ? question.id
    : undefined;
}

/** The caller id of the person speaking, on the virtual board. */
const PERSON = 'task-bench';

/** A virtual board with `partsFileText` on it, and every tool on it with every capability. */
export async function virtualConnection(options: {
  partsFileText?: string;
  noiseSeed?: number;
  appAnswer?: AppAnswer;
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
  const granted = new Set(CAPABILITIES);
  return {
    sim,
    async call(tool, args = {}, as) {
      const caller = { id: as ?? PERSON, granted };
      const rendersApps = options.appAnswer !== undefined;
      const o = outcomeOf(
        tool,
        args,
        await runTool(dispatcher, {
          name: tool,
          arguments: args,
          caller,
          ...(rendersApps ? { rendersApps } : {}),
        }),
      );
      const asked = pendingQuestion(o);
      if (asked)
        dispatcher.questions.answer(asked, caller.id, options.appAnswer === 'yes' ? 'accept' : 'decline');
      return o;
    },
    holder: (as) => as ?? PERSON,
    async close() {
      dispatcher.close();
      await session.close();
      await sim.stop();
    },
  };
}

/** A bearer token a caller presents, and the lease holder name the server gives its calls. */
export interface Bearer {
  token: string;
  /** `http:token:tok_1a2b`: the caller id of the token's calls (src/http/caller.ts). */
  holder: string;
}

async function mcpClient(url: string, bearer: Bearer | undefined, apps: boolean): Promise<Client> {
  const client = new Client(
    { name: 'jumperless-task-bench', version: '1' },
    apps ? { capabilities: { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } } : {},
  );
  const headers = bearer ? { Authorization: `Bearer ${bearer.token}` } : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : {}),
  );
  return client;
}

/**
 * A running server, over Streamable HTTP, as any MCP client reaches it: as the person with
 * `bearers.person`, as another with `bearers.others[name]` (each its own client), anonymous
 * without one.
 * An anonymous caller is its session, so another person's calls without a bearer are another
 * session's, and the holder of their lease is not known here.
 */
export async function mcpConnection(
  url: string,
  bearers: { person?: Bearer; others?: Readonly<Record<string, Bearer>> } = {},
  appAnswer?: AppAnswer,
): Promise<Connection> {
  const bearer = (as: string | undefined) => (as === undefined ? bearers.person : bearers.others?.[as]);
  const clients = new Map<string | undefined, Promise<Client>>();
  const client = (as: string | undefined) => {
    let found = clients.get(as);
    if (!found) {
      found = mcpClient(url, bearer(as), appAnswer !== undefined);
      clients.set(as, found);
    }
    return found;
  };
  await client(undefined);
  return {
    async call(tool, args = {}, as) {
      const caller = await client(as);
      const result = await caller.callTool({ name: tool, arguments: args });
      const o = outcomeOf(tool, args, result as Pick<ToolResult, 'content' | 'isError'>);
      const asked = pendingQuestion(o);
      // The person's answer in the app's form: the app calls confirm_answer through its host.
      if (asked)
        await caller.callTool({ name: 'confirm_answer', arguments: { question: asked, answer: appAnswer } });
      return o;
    },
    holder: (as) => bearer(as)?.holder,
    async close() {
      for (const c of clients.values()) await (await c).close();
    },
  };
}
