/**
 * What a tool is (STYLE.md §1-§5): one plain object with its name, schemas, kind, capability and
 * handler. Tools know nothing of MCP; dispatch validates, gates, runs and renders them.
 */
import type { z } from 'zod';
import type { BoardClient } from './boardClient.js';
import type { SafetyPolicy } from './safety.js';

/** Drives annotations: read-only, changes state, drives real hardware, or loses data. */
export type ToolKind = 'read' | 'write' | 'physical' | 'destructive';

export const CAPABILITIES = [
  'jumperless.read',
  'jumperless.wire',
  'jumperless.power',
  'jumperless.io',
  'jumperless.files',
  'jumperless.exec',
  'jumperless.admin',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface ToolImage {
  mimeType: 'image/png';
  /** Base64. */
  data: string;
}

/** What a handler gets besides its arguments. */
export interface ToolContext {
  /** Aborted when the caller cancels or the deadline passes: pass it to every board call. */
  signal: AbortSignal;
  /** Progress for long work (sweeps, waits); a no-op when the caller asked for none. */
  progress(progress: number, total?: number, message?: string): void;
  /** Attaches a picture to the result (after the JSON text item). */
  attachImage(image: ToolImage): void;
  /**
   * Asks the person at the client a yes/no question (MCP elicitation), when the client supports
   * it; undefined otherwise.
   */
  confirm?(message: string): Promise<'accept' | 'decline' | 'cancel'>;
  /** The board, for device tools. */
  board: BoardClient;
  /** Voltage limits in force (board envelope, tightened by the operator). */
  safety: SafetyPolicy;
}

export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
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
   * Default true: the call holds the board from its first job to its end, so no other caller's
   * job runs in between (DESIGN.md §3). False only for tools that wait for a person for long
   * (each job then takes its own turn); such a tool keeps nothing on the board between its jobs
   * that another call could touch.
   */
  atomic?: boolean;
  /** `jumperless` module functions the tool needs; when the firmware lacks one, it says so. */
  requires?: readonly string[];
  handle(args: z.infer<I>, context: ToolContext): Promise<z.infer<O>>;
}

/** Identity function that gives a tool object its types. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: Tool<I, O>): Tool<I, O> {
  return tool;
}

/** A catalog entry of unknown argument and result types. */
// biome-ignore lint/suspicious/noExplicitAny: the catalog holds tools of every shape.
export type AnyTool = Tool<any, any>;

/** A failure the tool reports as its result (`isError: true`), with an actionable message. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly options: { retryable?: boolean; details?: Record<string, unknown> } = {},
  ) {
    super(message);
  }
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The one place kinds become MCP annotations (STYLE.md §2). */
export function annotationsFor(tool: Pick<Tool, 'kind' | 'title'>): ToolAnnotations {
  switch (tool.kind) {
    case 'read':
      return {
        title: tool.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      };
    case 'write':
      return {
        title: tool.title,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      };
    case 'physical':
      return {
        title: tool.title,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      };
    case 'destructive':
      return {
        title: tool.title,
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      };
  }
}
