/**
 * The Subsystem contract (dispatch notes §6, DESIGN.md §2 "federation"): anything that offers
 * tools behind one name. A board in this process, an MCP server started as a command or reached
 * at a URL, another jumperless-mcp over its socket, and the FederationAggregator, which is itself
 * a Subsystem, so federations nest (`bench.jumperless.dac_set`).
 *
 * Names inside a subsystem are its own; the aggregator prefixes them with `<child>.` and the
 * server turns the dotted internal names into wire names (wireNames.ts).
 */
import type { Capability, ToolAnnotations } from '../tools/tool.js';

export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/** One item of a tool result as MCP has it (text, image, audio, resource, resource_link...). */
export interface ContentBlock {
  type: string;
  [field: string]: unknown;
}

/** What a call returns: the shape runTool renders and MCP sends (`CallToolResult`). */
export interface SubsystemResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

/** A tool as a subsystem describes it: what `tools/list` shows, plus what the gateway enforces. */
export interface ToolDescriptor {
  /** The subsystem's own name for it, e.g. `dac_set`, or `jumperless.dac_set` from a nested aggregator. */
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Absent when the tool declares none (its results then need no `structuredContent`). */
  outputSchema?: JsonSchemaObject;
  annotations: Partial<ToolAnnotations>;
  /** Left out of every list, yet callable by name (e.g. python_exec). */
  hidden: boolean;
  /** What a caller must hold for the gateway to run it. */
  capability: Capability;
  /** The gateway's deadline for one call; the gateway default when absent. */
  timeoutMs?: number;
  /**
   * False while the subsystem offering it is down: the tool stays in the inbound table (a call
   * answers `unavailable` at once) but is left out of lists until the subsystem is back.
   */
  available?: boolean;
}

/** What a call carries down the tree besides its arguments. */
export interface InvokeContext {
  /** Aborted on the caller's cancellation or the gateway's deadline: every child honours it. */
  signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): void;
  /** Asks the person at the client a yes/no question, when the client can. */
  confirm?(message: string): Promise<'accept' | 'decline' | 'cancel'>;
  /** The client's features (log, elicit, sample) for tools running in this process; opaque here. */
  client?: unknown;
}

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
  | { type: 'tools_changed' };

export interface Subsystem {
  /** kebab-case (wireNames.ts `subsystemNameProblem`): never underscores, never dots. */
  readonly name: string;
  /** Access ring id (kebab-case) for gateways that scope access by ring; none by default. */
  readonly ring?: string;
  /** Opens the connection and learns the catalog; may be called again after a drop. Rejects when it cannot. */
  connect(): Promise<void>;
  /** Releases everything; `connect` may follow. Never rejects. */
  disconnect(): Promise<void>;
  /** The catalog as last learnt (empty before the first connect). */
  tools(): readonly ToolDescriptor[];
  /**
   * Runs one tool by the subsystem's own name. A tool failure is a result with `isError`, or a
   * thrown ToolError/DeviceError; a refusal the caller should see as JSON-RPC is a ChildRpcError.
   */
  invoke(tool: string, args: unknown, context: InvokeContext): Promise<SubsystemResult>;
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

/** A successful result as dispatch renders one (dispatch/result.ts): the JSON text mirror plus the object. */
export function structuredResult(data: Record<string, unknown>): SubsystemResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}
