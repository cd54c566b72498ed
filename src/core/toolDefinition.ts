/**
 * What a tool is (STYLE.md §1-§5): one plain object with its name, schemas, kind, capability and
 * handler; its kind and annotations; how `tools/list` shows it (a definition); what a subsystem
 * offers (a descriptor); and what one call carries (a CallContext, the same on every transport,
 * with or without a board behind it). Tools know nothing of MCP or of transports. A tool that acts
 * on the board is made by `defineDeviceTool` (tools/tool.ts); the subsystem that runs it holds the
 * board for each call (core/toolSubsystem.ts).
 */
import type { z } from 'zod';
import type { Capability } from './capabilities.js';
import type { HazardLimits } from './confirmation.js';
import type { ContentBlock } from './render.js';

/** A JSON Schema for an object, as MCP carries tool inputs and outputs. */
export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/** Drives annotations: read-only, changes state, drives real hardware, or loses data. */
export type ToolKind = 'read' | 'write' | 'physical' | 'destructive';

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The one place kinds become MCP annotations (STYLE.md §2). */
export function annotationsFor(tool: { kind: ToolKind; title: string }): ToolAnnotations {
  const { title } = tool;
  switch (tool.kind) {
    case 'read':
      return {
        title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      };
    case 'write':
      return {
        title,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      };
    case 'physical':
      return {
        title,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      };
    case 'destructive':
      return {
        title,
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      };
  }
}

/** The inverse of annotationsFor: what dispatch needs a kind for is "may it change the board". */
export function kindOf(annotations: Partial<ToolAnnotations>): ToolKind {
  if (annotations.readOnlyHint) return 'read';
  if (annotations.destructiveHint ?? true) return 'destructive';
  return (annotations.openWorldHint ?? true) ? 'physical' : 'write';
}

/** MCP's defaults for hints a tool leaves out (2025-06-18 tool annotations). */
const DEFAULT_HINTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/**
 * Annotations as a list sends them: only the hints that differ from MCP's defaults, without the
 * title (the definition has it at the top level). A client reading the defaults sees the same.
 */
export function listedAnnotations(annotations: Partial<ToolAnnotations>): Partial<ToolAnnotations> {
  const listed: Partial<ToolAnnotations> = {};
  for (const hint of Object.keys(DEFAULT_HINTS) as Array<keyof typeof DEFAULT_HINTS>) {
    const value = annotations[hint];
    // Hints beside readOnlyHint mean nothing for a read-only tool (MCP says so), so they go too.
    if (hint !== 'readOnlyHint' && annotations.readOnlyHint === true && hint !== 'openWorldHint') continue;
    if (value !== undefined && value !== DEFAULT_HINTS[hint]) listed[hint] = value;
  }
  return listed;
}

/** A tool as `tools/list` shows it (and as the toolsnaps record it). */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Absent only for federated tools whose child declares none. */
  outputSchema?: JsonSchemaObject;
  annotations: ToolAnnotations;
  /** MCP `_meta` of the listed tool: `ui.resourceUri`, the MCP App that shows its result. */
  _meta?: Record<string, unknown>;
}

/** A tool as a subsystem offers it: what `tools/list` shows, plus what the gateway enforces. */
export interface ToolDescriptor {
  /** The subsystem's own name for it, e.g. `dac_set`, or `jumperless.dac_set` from a nested aggregator. */
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Absent when the tool declares none (its results then need no `structuredContent`). */
  outputSchema?: JsonSchemaObject;
  annotations: Partial<ToolAnnotations>;
  /** MCP `_meta` of the listed tool (`ui.resourceUri`). */
  _meta?: Record<string, unknown>;
  /** Left out of every list, yet callable by name (e.g. python_exec). */
  hidden: boolean;
  /** The tool group it belongs to (`power`), when the subsystem says. */
  group?: string;
  /** What a caller must hold for the gateway to run it. */
  capability: Capability;
  /** The gateway's deadline for one call; the gateway default when absent. */
  timeoutMs?: number;
  /** Concurrent calls the gateway lets through; unlimited when absent. */
  maxConcurrent?: number;
  /**
   * False while the subsystem offering it is down: the tool stays in the inbound table (a call
   * answers `unavailable` at once) but is left out of lists until the subsystem is back.
   */
  available?: boolean;
  /**
   * Tools in this process check their arguments before the capability gate and hand `invoke` what
   * it returns (throws a -32602 RpcError); a remote child's tools check them on the child.
   */
  parse?(args: unknown): unknown;
  /** The tool's hazard question for arguments `parse` returned (tools in this process). */
  hazard?(args: unknown, limits: HazardLimits): string | undefined;
}

/** Client features a call may use through MCP (logging, elicitation, sampling); absent elsewhere. */
export interface ClientBridge {
  log(level: 'debug' | 'info' | 'notice' | 'warning' | 'error', data: unknown): Promise<void>;
  elicit(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  sample(params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** What one call carries, from the transport down to the tool, on every transport. */
export interface CallContext {
  /** Aborted when the caller cancels or the deadline passes: every board job and child honours it. */
  signal: AbortSignal;
  /** Progress for long work; a no-op when the caller asked for none. */
  progress(progress: number, total?: number, message?: string): void;
  /** Asks the person at the client a yes/no question, when the client can. */
  confirm?(message: string): Promise<'accept' | 'decline' | 'cancel'>;
  client?: ClientBridge;
  /** Who calls (`stdio`, `http:<session>`, `socket:<peer>`): board turns are taken per caller. */
  caller: string;
  /** What the caller holds, so tools about tools show only what it may call; absent: not known. */
  granted?: ReadonlySet<Capability>;
  /** The outside lease the caller presents; a board bound to its name is the caller's (tools/tool.ts). */
  outsideLease?: PresentedLease;
  /** A name a person would know the caller by (a token's name), when it has one. */
  callerName?: string;
}

/**
 * An outside lease as a caller presents it (device/boardLeases.ts `OutsideLease`, restated here so
 * that this contract imports nothing below core): the claim's or header's name, the name a board is
 * bound to, which lease of it, and its end when known.
 */
export interface PresentedLease {
  key: string;
  name: string;
  lease?: string;
  until?: string;
}

/**
 * Where a jumperless-mcp server puts, in `_meta` of `tools/list`, the hidden tools this caller may
 * call (python_exec): a gateway in front of it can offer them by name, and no model sees them listed.
 */
export const HIDDEN_TOOLS_META = 'io.github.jumperless-mcp/hidden-tools';

/**
 * Where a listed tool that needs `jumperless.exec` or `jumperless.admin` says so in its `_meta`: a
 * gateway in front of us (a bench) gates it as we do, rather than guessing from its annotations.
 */
export const TOOL_CAPABILITY_META = 'io.github.jumperless-mcp/capability';

/** What a handler gets: the call's context and a place for content after the JSON text item. */
export interface HandlerContext extends CallContext {
  attach(block: ContentBlock): void;
}

export interface ToolShape<I extends z.ZodObject, O extends z.ZodObject> {
  /** snake_case `<group>_<verb>[_<noun>]`, unique in the catalog. */
  name: string;
  title: string;
  /** One or two sentences: what it does, the hazards that matter, units. */
  description: string;
  /** Tool group id (file name), e.g. `power`. */
  group: string;
  input: I;
  output: O;
  kind: ToolKind;
  capability: Capability;
  /** Run-time limit; default 10 s. */
  timeoutMs?: number;
  /** Left out of lists but callable by name (e.g. python_exec). */
  hidden?: boolean;
  /** Concurrent calls allowed; board tools queue on the session anyway. Default unlimited. */
  maxConcurrent?: number;
  /**
   * The question to put to the person before this call, when these arguments are a hazard (a
   * supply above the threshold, clearing the board, overwriting a slot or a file, running code);
   * undefined when they are not. Asked under the operator's `--confirm` policy (core/confirmation.ts).
   */
  hazard?(args: z.infer<I>, limits: HazardLimits): string | undefined;
  /**
   * The MCP App (a `ui://` resource, SEP-1865) a host shows under this tool's result: set on the
   * tools that change or read the board, so the person sees the board the call left.
   */
  app?: string;
}

/**
 * A tool: its shape and its handler. `Env` is what the tool acts on, handed in per call by the
 * subsystem that runs it (the board and the limits for a device tool; nothing for the others).
 */
export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject, Env = unknown>
  extends ToolShape<I, O> {
  /**
   * `jumperless` module functions the tool needs (set by defineDeviceTool; checked per call by
   * core/toolSubsystem.ts, and by selftest).
   */
  requires?: readonly string[];
  /** The functions one call needs, when less than `requires`. */
  requiresFor?(args: z.infer<I>): readonly string[];
  /** Runs one call with validated arguments. */
  handle(args: z.infer<I>, context: HandlerContext, env: Env): Promise<z.infer<O>>;
}

/** A tool that needs no board (the discovery meta-tools, fixtures). */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolShape<I, O> & { handle(args: z.infer<I>, context: HandlerContext): Promise<z.infer<O>> },
): Tool<I, O> {
  return tool;
}

/** A catalog entry of unknown argument, result and environment types. */
// biome-ignore lint/suspicious/noExplicitAny: the catalog holds tools of every shape.
export type AnyTool = Tool<any, any, any>;
