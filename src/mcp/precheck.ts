/**
 * Requests the SDK would answer wrongly or not at all, answered here with the right JSON-RPC error:
 * a `params` that is not an object (the SDK drops the message, and the client waits out its
 * timeout), and `tools/call` arguments that are not an object (the SDK's message is its validator's
 * issue list as JSON). docs/sdk-gaps.md; sdkGaps.test.ts shows the SDK alone.
 */
import { JSONRPC } from '../core/errors.js';
import { isRecord } from '../core/json.js';

export interface EarlyError {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** The error to answer `message` with before it reaches the SDK, or undefined to let it through. */
export function precheck(message: unknown): EarlyError | undefined {
  if (!isRecord(message) || typeof message.method !== 'string') return undefined;
  const { id } = message;
  // Notifications get no answer, whatever is wrong with them.
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const refuse = (text: string): EarlyError => ({
    jsonrpc: '2.0',
    id,
    error: { code: JSONRPC.invalidParams, message: text },
  });
  if ('params' in message && !isRecord(message.params)) {
    return refuse(`Invalid params: the params of ${message.method} must be an object`);
  }
  const params = message.params as Record<string, unknown> | undefined;
  if (message.method === 'tools/call' && params && 'arguments' in params) {
    if (!isRecord(params.arguments)) {
      return refuse(
        `Invalid arguments for tool ${String(params.name)}: arguments must be an object of named values`,
      );
    }
  }
  return undefined;
}

/** The answer to a line that is not JSON at all (NaN, Infinity, a cut line). */
export function parseErrorOf(): EarlyError {
  return { jsonrpc: '2.0', id: null, error: { code: JSONRPC.parseError, message: 'Parse error: not JSON' } };
}
