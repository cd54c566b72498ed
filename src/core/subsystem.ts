/**
 * The Subsystem contract (dispatch notes §6): anything that offers tools behind one name. Tools in
 * this process (toolSubsystem.ts: a board's catalog, the server's own tools), an MCP server started
 * as a command or reached at a URL, an ATD server over its socket, and a bench's aggregator, which
 * is itself a Subsystem, so benches nest (`bench.jumperless.dac_set`). A server is one subsystem,
 * its root, behind the registry (registry.ts).
 *
 * Names inside a subsystem are its own; the aggregator prefixes them with `<child>.` and the
 * server turns the dotted internal names into wire names (wireNames.ts).
 */
import type { ToolResult } from './render.js';
import type { LogLevel, Prompt, Resource, ResourceTemplate } from './resources.js';
import type { CallContext, ToolDescriptor } from './toolDefinition.js';

/** Ordered from best to worst, so an aggregate is the worst of its children. */
export const HEALTH_ORDER = ['ok', 'degraded', 'down'] as const;
export type HealthStatus = (typeof HEALTH_ORDER)[number];

export interface SubsystemHealth {
  name: string;
  status: HealthStatus;
  /** Why, in one sentence, when not ok. */
  detail?: string;
  ring?: string;
  /** An aggregator's children, each with its own status. */
  children?: SubsystemHealth[];
  /** Anything else the subsystem reports (a board's link health, a child's reconnect attempts). */
  [extra: string]: unknown;
}

export type SubsystemEvent =
  /** The connection was lost: the aggregator marks the tools unavailable and reconnects with backoff. */
  | { type: 'down'; reason: string }
  /** The catalog changed (a child's own `list_changed`, a nested child that came or went). */
  | { type: 'tools_changed' }
  /** Something the people at the clients should hear (a board unplugged, back, reset). */
  | { type: 'log'; level: LogLevel; text: string };

export interface Subsystem {
  /** kebab-case (wireNames.ts `subsystemNameProblem`): never underscores, never dots. */
  readonly name: string;
  /** Access ring id (kebab-case) for gateways that scope access by ring; none by default. */
  readonly ring?: string;
  /** Opens the connection and learns the catalog; may be called again after a drop. Rejects when it cannot. */
  connect(): Promise<void>;
  /** Releases everything; `connect` may follow. Never rejects. */
  disconnect(): Promise<void>;
  /** The catalog as last learnt: a remote child's is empty before its first connect, a local one's static. */
  tools(): readonly ToolDescriptor[];
  /** Resources it offers, each bound to it (a board's state, picture...); none by default. */
  resources?(): readonly Resource[];
  /** Resource templates it offers; none by default. */
  templates?(): readonly ResourceTemplate[];
  /** Prompts it offers; none by default. */
  prompts?(): readonly Prompt[];
  /**
   * Runs one tool by the subsystem's own name, with arguments that passed the descriptor's `parse`
   * when it has one. A tool failure is a result with `isError`, or a thrown ToolError/DeviceError;
   * a refusal the caller should see as JSON-RPC is an RpcError.
   */
  invoke(tool: string, args: unknown, context: CallContext): Promise<ToolResult>;
  health(): SubsystemHealth;
  /** Events the subsystem raises on its own; returns an unsubscribe function. */
  watch(listener: (event: SubsystemEvent) => void): () => void;
}

/** The worst of some statuses (`ok` for none). */
export function worstStatus(statuses: Iterable<HealthStatus>): HealthStatus {
  let worst = 0;
  for (const status of statuses) worst = Math.max(worst, HEALTH_ORDER.indexOf(status));
  return HEALTH_ORDER[worst] ?? 'down';
}
