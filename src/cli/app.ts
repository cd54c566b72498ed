/**
 * The one builder (issue 11 "one app"): a server is a root subsystem behind the dispatch core.
 * One board is a root of its own with plain names; a bench (`--config bench.json`) is an
 * aggregator of its children with dotted names in the wire format. Tools, resources, prompts,
 * completions and link-event logs come from the root either way. The server answers at once: one
 * board opens meanwhile and its calls wait for it (when it cannot be opened, the server says why
 * and a call tries again); a bench's children appear as they connect (`tools/list_changed`).
 */
import { createDispatcher, type Dispatcher, fileAuditSink, type ServerExtras } from '../dispatch/index.js';
import type { Subsystem } from '../federation/index.js';
import { wireFormat } from '../federation/wireNames.js';
import type { McpServerHandle } from '../mcp/server.js';
import { safetyPolicy } from '../tools/safety.js';
import { checkDevice, openServedBoard, type ServedBoard } from './board.js';
import { boardSubsystem } from './boardSubsystem.js';
import type { Config } from './config.js';
import type { CallerOf } from './serve.js';

const log = (line: string) => process.stderr.write(`jumperless-mcp: ${line}\n`);

/** What stdio, HTTP and the native socket serve: one MCP server per connection over one core. */
export interface App {
  /** The registry and runTool every transport shares (the socket calls it directly). */
  dispatcher: Dispatcher;
  /** The board of a single-board server (undefined for a bench). */
  readonly board: ServedBoard | undefined;
  /** `perRequest`: a server for one 2026-07-28 HTTP request (it follows no changes). */
  createServer(caller: CallerOf, options?: { perRequest?: boolean }): McpServerHandle;
  /** Resolves once the board, or every child of a bench, has connected or failed once. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface AppOptions {
  /** false: say nothing of holding the board or working through its owner (one-shot commands). */
  announceBoard?: boolean;
  /** false: an app that serves no MCP (one-shot commands run tools only), so the SDK is not loaded. */
  mcp?: boolean;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const safety = safetyPolicy({ maxVolts: config.maxVolts, minVolts: config.minVolts });
  if (!config.federation) await checkDevice(config.device);
  let single: ServedBoard | undefined;
  const openBoard = async (device: string) => {
    const board = await openServedBoard(device, `jumperless-mcp ${process.argv[2] ?? 'server'}`, {
      announce: options.announceBoard !== false,
    });
    if (!config.federation) single = board;
    return board;
  };
  // Loaded only when used: a bench's children (the SDK client among them), the conformance fixtures.
  const bench = config.federation
    ? (await import('./bench.js')).loadBench(config.federation, safety, openBoard)
    : undefined;
  const fixtures = config.conformanceFixtures ? await import('../mcp/conformance.js') : undefined;
  const mcp = options.mcp === false ? undefined : await import('../mcp/server.js');
  const root: Subsystem = bench ? bench.root : boardSubsystem('jumperless', config.device, safety, openBoard);
  const audit = config.audit ? fileAuditSink(config.audit) : undefined;
  const own: ServerExtras = {
    ...(fixtures
      ? {
          tools: fixtures.conformanceTools,
          templates: fixtures.conformanceTemplates,
          prompts: fixtures.conformancePrompts,
        }
      : {}),
    resources: [...(bench ? [bench.health] : []), ...(fixtures ? fixtures.conformanceResources : [])],
  };
  let dispatcher: Dispatcher;
  try {
    dispatcher = createDispatcher({
      root,
      format: wireFormat(bench?.file.wireFormat),
      own,
      safety,
      log,
      ...(audit ? { audit } : {}),
      outputSchemas: config.outputSchemas,
      selection: {
        ...(config.toolsets ? { toolsets: config.toolsets } : {}),
        tools: config.tools,
        excludeTools: config.excludeTools,
        readOnly: config.readOnly,
      },
    });
  } catch (error) {
    await audit?.close();
    throw error;
  }
  let closing = false;
  const close = async () => {
    closing = true;
    dispatcher.close();
    await root.disconnect();
    await audit?.close();
  };
  // The server answers while its board opens (a virtual board boots for a quarter of a second):
  // a call made meanwhile waits for it. A board that is not there yet (unplugged, still booting)
  // does not stop the server: the first call opens it again, and says why when it cannot.
  const connecting = root.connect().catch((error: unknown) => {
    // A bench tells of each child; a server stopped while its board opened has nothing to tell.
    if (bench || closing) return;
    log(`${config.device}: ${error instanceof Error ? error.message : String(error)}; a call will try again`);
  });
  const listMode = config.listMode ?? bench?.file.listMode;
  return {
    dispatcher,
    get board() {
      return single;
    },
    createServer: (caller, options) => {
      if (!mcp) throw new Error('this app was built to run tools, not to serve MCP');
      return mcp.createMcpServer({
        ...options,
        dispatcher,
        caller: (extra) => caller(extra.sessionId, extra.http?.authInfo),
        instructions: bench ? bench.instructions : mcp.INSTRUCTIONS,
        ...(listMode ? { listMode } : {}),
      });
    },
    ready: () => connecting,
    close,
  };
}
