/**
 * The two kinds of failure (STYLE.md §5). A protocol failure is an RpcError, thrown by the core or
 * by a federated child and turned into a JSON-RPC error by the transport as is (the SDK copies
 * `code`, `message`, `data`). A tool failure is a ToolError, rendered once by runTool as an
 * `isError` result the model can act on.
 */

/** JSON-RPC 2.0 codes we use (DESIGN.md §4 "Protocol"). */
export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** Dispatch codes carried in `error.data.code` of a -32603 (dispatch notes §2.3). */
export const DISPATCH = {
  capabilityDenied: 1001,
  rateLimited: 1002,
  brokerFailed: 1003,
  internal: 1999,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

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

/** The answer of a tool whose subsystem is not connected: at once, never a hang. */
export function unavailable(subsystem: string, why: string): ToolError {
  return new ToolError(
    'unavailable',
    `${subsystem} is not connected (${why}); the server reconnects it by itself, so retry in a few seconds.`,
    { retryable: true, details: { subsystem } },
  );
}
