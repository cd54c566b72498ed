/**
 * The one builder (issue 11 "one app"): a server is a root subsystem behind the dispatch core.
 * One board is a root of its own with plain names; a bench (`--config bench.json`) is an
 * aggregator of its children with dotted names in the wire format. Tools, resources, prompts,
 * completions and link-event logs come from the root either way. The server answers at once and
 * opens no board before a call needs it (a copy of a stdio server started only to learn its
 * protocol version must not touch the board); a bench's remote children appear as they connect
 * (`tools/list_changed`).
 */
import { fileAuditSink } from '../core/audit.js';
import { createDispatcher, type Dispatcher, type ServerExtras } from '../core/dispatcher.js';
import type { Era } from '../core/era.js';
import type { OutsideLeaseSource } from '../core/outsideLease.js';
import type { Subsystem } from '../core/subsystem.js';
import { wireFormat } from '../federation/wireNames.js';
import type { CallerOf, McpServerHandle } from '../mcp/server.js';
import { safetyPolicy } from '../tools/safety.js';
import { checkDevice, openServedBoard, type ServedBoard } from './board.js';
import { boardSubsystem } from './boardSubsystem.js';
import type { Config } from './config.js';

const log = (line: string) => process.stderr.write(`jumperless-mcp: ${line}\n`);

/** What stdio, HTTP and the native socket serve: one MCP server per connection over one core. */
export interface App {
  /** The registry and runTool every transport shares (the socket calls it directly). */
  dispatcher: Dispatcher;
  /** The board of a single-board server (undefined for a bench). */
  readonly board: ServedBoard | undefined;
  /** A server for a connection or request of `era`; `perRequest`: for one 2026-07-28 HTTP request (it follows no changes). */
  createServer(caller: CallerOf, options: { era: Era; perRequest?: boolean }): McpServerHandle;
  /** Where HTTP reads a caller's outside lease: `--outside-lease`, else the bench's `outsideLease`. */
  readonly outsideLease: OutsideLeaseSource | undefined;
  /** Resolves once every remote child of a bench has connected or failed once (at once for a board). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface AppOptions {
  /** false: say nothing of holding the board or working through its owner (one-shot commands). */
  announceBoard?: boolean;
  /** false: an app that serves no MCP (one-shot commands run tools only), so the SDK is not loaded. */
  mcp?: boolean;
  /** What the server adds beside its root's tools, resources and prompts (the tests' conformance fixtures). */
  extras?: ServerExtras;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const safety = safetyPolicy({ maxVolts: config.maxVolts, minVolts: config.minVolts });
  if (!config.federation) await checkDevice(config.device);
  let single: ServedBoard | undefined;
  const openBoard = async (device: string) => {
    const board = await openServedBoard(device, `jumperless-mcp ${process.argv[2] ?? 'server'}`, {
      announce: options.announceBoard !== false,
      telemetry: config.telemetry,
    });
    if (!config.federation) single = board;
    return board;
  };
  // Loaded only when used: a bench's children (the SDK client among them).
  const bench = config.federation
    ? (await import('./bench.js')).loadBench(config.federation, safety, openBoard)
    : undefined;
  const mcp = options.mcp === false ? undefined : await import('../mcp/server.js');
  const root: Subsystem = bench
    ? bench.root
    : boardSubsystem('jumperless', config.device, safety, openBoard, {
        ...(config.leaseName !== undefined ? { leaseName: config.leaseName } : {}),
      });
  const outsideLease = config.outsideLease ?? bench?.file.outsideLease;
  const audit = config.audit ? fileAuditSink(config.audit) : undefined;
  const extras = options.extras ?? {};
  const own: ServerExtras = {
    ...extras,
    resources: [...(bench ? [bench.health] : []), ...(extras.resources ?? [])],
  };
  let dispatcher: Dispatcher;
  try {
    dispatcher = createDispatcher({
      root,
      format: wireFormat(bench?.file.wireFormat),
      own,
      log,
      ...(audit ? { audit } : {}),
      outputSchemas: config.outputSchemas,
      confirm: { mode: config.confirm, aboveVolts: config.confirmAboveVolts },
      telemetry: async () => single?.telemetry(),
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
  const close = async () => {
    dispatcher.close();
    await root.disconnect();
    await audit?.close();
  };
  // A board opens nothing here (its first call opens it); a bench connects its remote children,
  // each telling on its own when it cannot, and retrying by itself.
  const connecting = root.connect().catch(() => {});
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
        caller,
        instructions: bench ? bench.instructions : mcp.INSTRUCTIONS,
        ...(listMode ? { listMode } : {}),
      });
    },
    outsideLease,
    ready: () => connecting,
    close,
  };
}
