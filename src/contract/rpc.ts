/**
 * Protocol failures (STYLE.md §5): one error type, thrown by dispatch or by a federated child and
 * turned into a JSON-RPC error by the transport as is (the SDK copies `code`, `message`, `data`).
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
