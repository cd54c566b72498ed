/**
 * What the socket server needs from the core, as a small interface so the transport is tested
 * on its own and dispatch plugs in behind it (see /tmp/team/issue5.md for the wiring). Tool ids
 * are the internal dotted names (DESIGN.md §4 Protocol).
 */
import type { SocketToolSummary } from './messages.js';

/** Who is calling over this connection, as its last `hello` set it. */
export interface SocketCallContext {
  /** The `client_id` the peer claimed in `hello` (unverified: the socket's 0600 mode is the trust boundary); undefined before hello or when none was given. */
  callerId: string | undefined;
  /** Numbered per server, for audit names such as `socket:conn3` when there is no client id. */
  connectionId: number;
  /** Requested ∩ operator allow-list, sorted; empty before `hello`. */
  capabilities: readonly string[];
  dryRun: boolean;
  /** Aborted when the peer disconnects or the server stops. */
  signal: AbortSignal;
}

export type RunToolOutcome =
  /** The tool ran: `success: false` is a tool-level failure whose result is `{code, message, retryable}`. */
  | { kind: 'result'; success: boolean; result: unknown }
  /** The call was refused or broke: capability denied (1001), rate limited (1002), unknown tool (no code)... */
  | { kind: 'error'; message: string; code?: number; retryable?: boolean; details?: unknown };

export interface SocketToolHandler {
  /**
   * Visible tools, then the hidden ones this connection may call, labelled `hidden` (a gateway
   * offers them by name; they stay out of any model's list).
   */
  listTools(granted: readonly string[]): Promise<readonly SocketToolSummary[]>;
  /** The full definition of any tool, hidden included; undefined when there is no such tool. */
  toolSchema(toolId: string): Promise<unknown | undefined>;
  /** Rejections are bugs: they become an `error` frame without details and a log line. */
  runTool(toolId: string, args: unknown, context: SocketCallContext): Promise<RunToolOutcome>;
}

/** ATD's dry run answer (dispatch notes §2.3 step 1): what would run, without running it. */
export function dryRunPreview(toolId: string, args: unknown): RunToolOutcome {
  return { kind: 'result', success: true, result: { dry_run: true, tool_id: toolId, args_preview: args } };
}
