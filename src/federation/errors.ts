/**
 * Failures of federated calls. Tool failures stay ToolErrors (the model reads them as results);
 * a child's JSON-RPC refusal (unknown tool, invalid arguments, capability denied) is carried as an
 * RpcError (src/contract) so dispatch passes it on with the child's code (DESIGN.md §4 "Protocol").
 */
import { ToolError } from '../tools/tool.js';

/** A start-up refusal: bad subsystem names, colliding wire names, a bad config file. */
export class FederationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FederationError';
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
