/**
 * A bench (`--config bench.json`): an aggregator of boards, other MCP servers and other
 * jumperless-mcp processes, with its health resource and instructions. Loaded by the app only
 * when it serves a bench, with the SDK client and the socket client its children need.
 */
import type { Resource } from '../core/resources.js';
import type { Subsystem } from '../core/subsystem.js';
import { FrameClient } from '../device/frameClient.js';
import { FederationAggregator } from '../federation/aggregator.js';
import { type ChildConfig, type FederationConfig, loadFederationConfig } from '../federation/config.js';
import { httpTransport, McpChild, stdioTransport } from '../federation/mcpChild.js';
import { SocketChild } from '../federation/socketChild.js';
import type { SafetyPolicy } from '../tools/safety.js';
import type { ServedBoard } from './board.js';
import { boardSubsystem } from './boardSubsystem.js';

export interface Bench {
  file: FederationConfig;
  root: FederationAggregator;
  /** `federation://health`. */
  health: Resource;
  instructions: string;
}

const log = (line: string) => process.stderr.write(`jumperless-mcp: ${line}\n`);

export function loadBench(
  path: string,
  safety: SafetyPolicy,
  open: (device: string) => Promise<ServedBoard>,
): Bench {
  const file = loadFederationConfig(path);
  const root = benchRoot(file, safety, open);
  return { file, root, health: healthResource(root), instructions: instructionsOf(file) };
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
        ...(child.leaseName !== undefined ? { leaseName: child.leaseName } : {}),
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
        open: (path) => FrameClient.connect(path),
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
