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
  const invalid = invalidRequest(message);
  if (invalid) return invalid;
  if (!isRecord(message) || typeof message.method !== 'string') return undefined;
  const { id } = message;
  // Notifications get no answer, whatever is wrong with their params.
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

/**
 * How deep a message may nest. The SDK checks a message with recursive schemas, which overflow the
 * stack on a `_meta` 100,000 deep (issue 23: an HTTP 500, no answer on stdio); no MCP message or
 * tool argument here nests past a dozen levels.
 */
export const MAX_DEPTH = 64;

/** Whether `value` nests past `limit` levels, walked without recursion (the point is not to overflow). */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth >= limit) return true;
    for (const child of Object.values(item.value)) stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}

const validId = (id: unknown): id is string | number => typeof id === 'string' || typeof id === 'number';

/**
 * -32600 for what is no JSON-RPC message at all, which the SDK drops without a word (issue 23: 44
 * of 148 such requests over stdio waited forever): a value that is not an object (a batch too: MCP
 * has none since 2025-06-18), an object with neither a string `method` nor a response's `result` /
 * `error`, an `id` that is neither a string nor a number, a request whose `jsonrpc` is not "2.0".
 * The answer carries the request's id when it has a valid one, else null (JSON-RPC 2.0 §5). A
 * notification (a string method, no id) is never answered, as JSON-RPC says.
 */
function invalidRequest(message: unknown): EarlyError | undefined {
  const refuse = (id: string | number | null, why: string): EarlyError => ({
    jsonrpc: '2.0',
    id,
    error: { code: JSONRPC.invalidRequest, message: `Invalid Request: ${why}` },
  });
  if (Array.isArray(message)) return refuse(null, 'batches are not supported; send one message per request');
  if (!isRecord(message)) return refuse(null, 'a message is a JSON object');
  const hasId = 'id' in message;
  const id = validId(message.id) ? message.id : null;
  if (hasId && id === null) return refuse(null, 'id must be a string or a number');
  if (deeperThan(message, MAX_DEPTH)) {
    return refuse(id, `the message nests objects and arrays more than ${MAX_DEPTH} deep`);
  }
  if (!('method' in message)) {
    // A response to one of our requests (elicitation, sampling) has no method.
    if (hasId && ('result' in message || 'error' in message)) return undefined;
    return refuse(id, 'a request needs a method');
  }
  if (typeof message.method !== 'string') return refuse(id, 'method must be a string');
  if (hasId && message.jsonrpc !== '2.0') return refuse(id, 'jsonrpc must be "2.0"');
  return undefined;
}

/** The answer to a line that is not JSON at all (NaN, Infinity, a cut line). */
export function parseErrorOf(): EarlyError {
  return { jsonrpc: '2.0', id: null, error: { code: JSONRPC.parseError, message: 'Parse error: not JSON' } };
}
