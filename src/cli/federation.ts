/**
 * The federated server (`--config bench.json`): the config's children as subsystems under one
 * FederationAggregator, connected before anything is served; then the exact inbound table over
 * their catalogs (a collision or a bad name refuses to start), a dispatcher over it, and the
 * same MCP server as for one board. Each board child gets its own session (its own queue) and a
 * single-board dispatcher of its own, so its tools behave as on a single-board server.
 */
import {
  boardRunner,
  createDispatcher,
  type Dispatcher,
  discoveryTools,
  federatedRegistry,
  fileAuditSink,
  type Resource,
  toolDescriptor,
} from '../dispatch/index.js';
import {
  type BoardRuntime,
  type ChildConfig,
  FederationAggregator,
  type FederationConfig,
  httpTransport,
  JumperlessSubsystem,
  loadFederationConfig,
  McpChild,
  SocketChild,
  type Subsystem,
  stdioTransport,
  wireFormat,
} from '../federation/index.js';
import { createMcpServer } from '../mcp/server.js';
import { SocketClient } from '../socket/index.js';
import { catalog } from '../tools/index.js';
import { type SafetyPolicy, safetyPolicy } from '../tools/safety.js';
import { openBoard } from './board.js';
import type { Config } from './config.js';
import type { CallerOf, Served } from './serve.js';

const log = (line: string) => process.stderr.write(`jumperless-mcp: ${line}\n`);

export async function buildFederatedApp(config: Config & { federation: string }): Promise<Served> {
  const file = loadFederationConfig(config.federation);
  const safety = safetyPolicy({ maxVolts: config.maxVolts, minVolts: config.minVolts });
  const root = new FederationAggregator({
    name: file.name,
    children: file.children.map((child) => subsystemOf(child, safety, file)),
    ...(file.reconnect
      ? { reconnectDelayMs: { initial: file.reconnect.initialMs, max: file.reconnect.maxMs } }
      : {}),
    log,
  });
  await root.connect();
  const audit = config.audit ? fileAuditSink(config.audit) : undefined;
  let dispatcher: Dispatcher;
  let registry: ReturnType<typeof federatedRegistry>;
  try {
    registry = federatedRegistry({
      root,
      format: wireFormat(file.wireFormat),
      own: discoveryTools(() => dispatcher.registry),
      log,
    });
  } catch (error) {
    await root.disconnect();
    await audit?.close();
    throw error;
  }
  dispatcher = createDispatcher({ registry, safety, ...(audit ? { audit } : {}) });
  const resources = [healthResource(root)];
  return {
    dispatcher,
    createServer: (caller: CallerOf) =>
      createMcpServer({
        dispatcher,
        resources,
        prompts: [],
        caller: (extra) => caller(extra.sessionId, extra.authInfo),
        instructions: instructionsOf(file),
        ...((config.listMode ?? file.listMode) ? { listMode: config.listMode ?? file.listMode } : {}),
      }),
    async close() {
      registry.close();
      await root.disconnect();
      await audit?.close();
    },
  };
}

function subsystemOf(child: ChildConfig, safety: SafetyPolicy, file: FederationConfig): Subsystem {
  const common = { name: child.name, ...(child.ring ? { ring: child.ring } : {}) };
  switch (child.type) {
    case 'jumperless':
      return new JumperlessSubsystem({
        ...common,
        device: child.device,
        open: () => boardRuntime(child.device, safety),
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
        children: child.children.map((grandchild) => subsystemOf(grandchild, safety, file)),
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

/** A board with its own session and a single-board dispatcher over it: the single-board server's core. */
async function boardRuntime(device: string, safety: SafetyPolicy): Promise<BoardRuntime> {
  const board = await openBoard(device);
  const dispatcher = createDispatcher({ tools: catalog, board: board.client, safety });
  return {
    tools: dispatcher.registry.all().map(toolDescriptor),
    run: boardRunner(dispatcher),
    connect: () => board.session.connect(),
    health: () => board.session.health(),
    close: () => board.close(),
  };
}

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
