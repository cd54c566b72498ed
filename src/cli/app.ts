/**
 * The one builder (issue 11 "one app"): a server is a root subsystem behind the dispatch core.
 * One board is a root of its own with plain names; a bench (`--config bench.json`) is an
 * aggregator of its children with dotted names in the wire format. Tools, resources, prompts,
 * completions and link-event logs come from the root either way. One board is opened before the
 * server answers (when it cannot be, the server says why and a call tries again); a bench answers
 * at once and its children appear as they connect (`tools/list_changed`).
 */
import { existsSync } from 'node:fs';
import type { Resource } from '../contract/index.js';
import { parseDeviceUrl } from '../device/deviceUrl.js';
import { createDispatcher, type Dispatcher, fileAuditSink, type ServerExtras } from '../dispatch/index.js';
import {
  type ChildConfig,
  FederationAggregator,
  type FederationConfig,
  httpTransport,
  JumperlessSubsystem,
  loadFederationConfig,
  McpChild,
  type OpenedBoard,
  SocketChild,
  type Subsystem,
  stdioTransport,
  wireFormat,
} from '../federation/index.js';
import {
  conformancePrompts,
  conformanceResources,
  conformanceTemplates,
  conformanceTools,
} from '../mcp/conformance.js';
import { createMcpServer, INSTRUCTIONS, type McpServerHandle } from '../mcp/server.js';
import { SocketClient } from '../socket/index.js';
import { catalog } from '../tools/index.js';
import { prompts as boardPrompts } from '../tools/prompts.js';
import { type SafetyPolicy, safetyPolicy } from '../tools/safety.js';
import { describeBoardEvent, openServedBoard, type ServedBoard } from './board.js';
import type { Config } from './config.js';
import type { CallerOf } from './serve.js';

const log = (line: string) => process.stderr.write(`jumperless-mcp: ${line}\n`);

/** What stdio, HTTP and the native socket serve: one MCP server per connection over one core. */
export interface App {
  /** The registry and runTool every transport shares (the socket calls it directly). */
  dispatcher: Dispatcher;
  /** The board of a single-board server (undefined for a bench). */
  readonly board: ServedBoard | undefined;
  createServer(caller: CallerOf): McpServerHandle;
  /** Resolves once every child has connected or failed once (at once for one board). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export async function buildApp(config: Config): Promise<App> {
  const safety = safetyPolicy({ maxVolts: config.maxVolts, minVolts: config.minVolts });
  const bench = config.federation ? loadFederationConfig(config.federation) : undefined;
  if (!bench) refuseMissingDevice(config.device);
  let single: ServedBoard | undefined;
  const openBoard = async (device: string) => {
    const board = await openServedBoard(device, `jumperless-mcp ${process.argv[2] ?? 'server'}`);
    if (!bench) single = board;
    return board;
  };
  const root = bench
    ? benchRoot(bench, safety, openBoard)
    : boardSubsystem('jumperless', config.device, safety, openBoard);
  const audit = config.audit ? fileAuditSink(config.audit) : undefined;
  const own: ServerExtras = {
    ...(config.conformanceFixtures
      ? {
          tools: conformanceTools,
          templates: conformanceTemplates,
          prompts: conformancePrompts,
        }
      : {}),
    resources: [
      ...(bench ? [healthResource(root as FederationAggregator)] : []),
      ...(config.conformanceFixtures ? conformanceResources : []),
    ],
  };
  let dispatcher: Dispatcher;
  try {
    dispatcher = createDispatcher({
      root,
      format: wireFormat(bench?.wireFormat),
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
  const close = async () => {
    dispatcher.close();
    await root.disconnect();
    await audit?.close();
  };
  let connecting = Promise.resolve();
  if (bench) {
    connecting = root.connect().catch(() => {});
  } else {
    // A board that is not there yet (unplugged, still booting) does not stop the server: the
    // first call opens it again, and says why when it cannot.
    await root.connect().catch((error: unknown) => {
      log(
        `${config.device}: ${error instanceof Error ? error.message : String(error)}; a call will try again`,
      );
    });
  }
  const listMode = config.listMode ?? bench?.listMode;
  return {
    dispatcher,
    get board() {
      return single;
    },
    createServer: (caller) =>
      createMcpServer({
        dispatcher,
        caller: (extra) => caller(extra.sessionId, extra.authInfo),
        instructions: bench ? instructionsOf(bench) : INSTRUCTIONS,
        ...(listMode ? { listMode } : {}),
      }),
    ready: () => connecting,
    close,
  };
}

/**
 * A serial path that does not exist is a typo or an unplugged board: say so now, in one line,
 * rather than serve a board no call will reach (a board that is there but not answering yet
 * is opened again by the next call).
 */
function refuseMissingDevice(device: string): void {
  const url = parseDeviceUrl(device);
  if (url.kind === 'serial' && !existsSync(url.path)) {
    throw new Error(
      `${url.path}: no such device. Plug the board in, or name its REPL port (USB interface 4 of the board) with --device, or use --device auto.`,
    );
  }
}

/** A board as a subsystem: the catalog bound to it, its resources and prompts, its link's events as logs. */
function boardSubsystem(
  name: string,
  device: string,
  safety: SafetyPolicy,
  open: (device: string) => Promise<ServedBoard>,
  options: { ring?: string; inBench?: boolean } = {},
): JumperlessSubsystem {
  return new JumperlessSubsystem({
    name,
    ...(options.ring ? { ring: options.ring } : {}),
    device,
    // A bench's virtual boards boot at their first call: fifty VMs would cost a GB before any use.
    openOnFirstUse: options.inBench === true && device.startsWith('sim'),
    tools: catalog,
    safety,
    prompts: boardPrompts,
    open: async (): Promise<OpenedBoard> => {
      const board = await open(device);
      return {
        client: board.client,
        ready: () => board.ready(),
        health: () => board.session?.health(),
        onLog: (listener) =>
          board.onEvent((event) => {
            const message = describeBoardEvent(event);
            if (message) listener(message.level, message.text);
          }),
        close: () => board.close(),
      };
    },
  });
}

function benchRoot(
  file: FederationConfig,
  safety: SafetyPolicy,
  open: (device: string) => Promise<ServedBoard>,
): FederationAggregator {
  return new FederationAggregator({
    name: file.name,
    children: file.children.map((child) => subsystemOf(child, safety, file, open)),
    ...(file.reconnect
      ? { reconnectDelayMs: { initial: file.reconnect.initialMs, max: file.reconnect.maxMs } }
      : {}),
    log,
  });
}

function subsystemOf(
  child: ChildConfig,
  safety: SafetyPolicy,
  file: FederationConfig,
  open: (device: string) => Promise<ServedBoard>,
): Subsystem {
  const common = { name: child.name, ...(child.ring ? { ring: child.ring } : {}) };
  switch (child.type) {
    case 'jumperless':
      return boardSubsystem(child.name, child.device, safety, open, {
        ...(child.ring ? { ring: child.ring } : {}),
        inBench: true,
      });
    case 'stdio':
      return new McpChild({
        ...common,
        ...remoteOptions(child),
        target: [child.command, ...child.args].join(' '),
        transport: stdioTransport(child.name, child, log),
      });
    case 'http':
      return new McpChild({
        ...common,
        ...remoteOptions(child),
        target: child.url,
        transport: httpTransport(child.url, child.bearer),
      });
    case 'socket':
      return new SocketChild({
        ...common,
        ...remoteOptions(child),
        path: child.path,
        open: (path) => SocketClient.connect(path),
      });
    case 'federation':
      return new FederationAggregator({
        ...common,
        children: child.children.map((grandchild) => subsystemOf(grandchild, safety, file, open)),
        ...(file.reconnect
          ? { reconnectDelayMs: { initial: file.reconnect.initialMs, max: file.reconnect.maxMs } }
          : {}),
        log,
      });
  }
}

function remoteOptions(child: { capability?: McpChildCapability; timeoutMs?: number }) {
  return {
    ...(child.capability ? { capability: child.capability } : {}),
    ...(child.timeoutMs ? { timeoutMs: child.timeoutMs } : {}),
  };
}

type McpChildCapability = NonNullable<ConstructorParameters<typeof McpChild>[0]['capability']>;

function healthResource(root: FederationAggregator): Resource {
  return {
    uri: 'federation://health',
    name: 'federation-health',
    title: 'Federation health',
    description:
      'Whether each device of the federation is connected (ok, degraded, down), with why and when it is retried; the top status is the worst child.',
    mimeType: 'application/json',
    read: async () => ({ text: JSON.stringify(root.health()) }),
  };
}

function instructionsOf(file: FederationConfig): string {
  const names = file.children.map((child) => `${child.name} (${kindOf(child)})`).join(', ');
  return (
    `Tools of the bench "${file.name}", whose devices are: ${names}. Every tool name starts with the device it acts on ` +
    '(e.g. jumperless-a_dac_set acts on jumperless-a). Jumperless V5 boards wire rows through a crossbar, set supplies, ' +
    'measure volts and amps and drive GPIO; read their state before changing anything. ' +
    'A tool answering "unavailable" belongs to a device that is reconnecting: retry later. federation://health tells which devices are up.'
  );
}

function kindOf(child: ChildConfig): string {
  switch (child.type) {
    case 'jumperless':
      return 'a Jumperless V5 breadboard';
    case 'federation':
      return `a group: ${child.children.map((c) => c.name).join(', ')}`;
    default:
      return 'an MCP server';
  }
}
