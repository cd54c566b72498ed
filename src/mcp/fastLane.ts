/**
 * A plain `tools/call` on an established 2025-era connection, answered without the SDK's
 * per-request machinery (issue 12): that machinery (message schemas, the transport's stream
 * bookkeeping, its Web Request/Response round trip on HTTP) costs more than a board-free call.
 * "Plain" means nothing of the request needs the SDK to read it: no `_meta` beyond a progress token,
 * no extra params. The call itself runs the same handler as the SDK path, and its answer goes
 * through the SDK's own codec and error shaping (sdkSeams.ts), so the bytes are the same; what the
 * call sends meanwhile (a log line, a question for the client) goes through the SDK's server,
 * tagged with the call's id as the SDK path tags it. Anything else is the SDK's.
 */
import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isModernProtocol, isRecord } from '../contract/index.js';
import { seamsOf } from './sdkSeams.js';

export interface PlainCall {
  jsonrpc: '2.0';
  id: string | number;
  method: 'tools/call';
  params: { name: string; arguments?: Record<string, unknown>; _meta?: { progressToken: string | number } };
}

/** A `_meta` that asks for progress and nothing else (what SDK clients send with onprogress). */
function isProgressOnly(meta: unknown): boolean {
  if (!isRecord(meta)) return false;
  const keys = Object.keys(meta);
  const token = meta.progressToken;
  return keys.length === 1 && (typeof token === 'string' || Number.isSafeInteger(token));
}

/**
 * The message's params when it is a `tools/call` of a tool name with arguments (if any) as an
 * object and no params but those and `_meta`, which each lane reads its own way; else undefined.
 */
export function toolsCallParams(message: unknown): Record<string, unknown> | undefined {
  if (!isRecord(message) || message.method !== 'tools/call' || message.jsonrpc !== '2.0') return undefined;
  const { id, params } = message;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isRecord(params) || typeof params.name !== 'string') return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  if ('arguments' in params && !isRecord(params.arguments)) return undefined;
  return params;
}

/** The message as a plain call, or undefined when the SDK must see it. */
export function plainCall(message: unknown): PlainCall | undefined {
  const params = toolsCallParams(message);
  if (!params || ('_meta' in params && !isProgressOnly(params._meta))) return undefined;
  for (const key in message as Record<string, unknown>)
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  return message as PlainCall;
}

/** How many calls took the fast lane in this process: tests read it to know which lane answered. */
export const fastLaneStats = { calls: 0 };

/**
 * Runs `call` with `run` (the server's own tools/call handler) and sends the answer the SDK would
 * send, on the server's transport as the SDK does, or by `send` when given (nothing when the call
 * was cancelled). Returns
 * undefined at once, having done nothing, when the SDK must serve it: the server is not serving a
 * 2025 era yet, or the SDK would refuse the request.
 */
export function answerPlainCall(
  server: Server,
  call: PlainCall,
  run: (request: PlainCall, signal: AbortSignal) => Promise<unknown>,
  send?: (message: JSONRPCMessage) => Promise<void>,
): Promise<void> | undefined {
  const version = server.getNegotiatedProtocolVersion();
  const transport = server.transport;
  if (version === undefined || isModernProtocol(version) || !transport) return undefined;
  const seams = seamsOf(server);
  if (!seams) return undefined;
  const { codec, inFlight } = seams;
  const checked = codec.validateRequest('tools/call', call);
  if (!checked.ok) return undefined;
  const request = checked.value as PlainCall;
  const { id } = call;
  const controller = new AbortController();
  inFlight.set(id, controller);
  fastLaneStats.calls++;
  const answer = async (): Promise<JSONRPCMessage | undefined> => {
    try {
      const result = await run(request, controller.signal);
      if (controller.signal.aborted) return undefined;
      // No input_required here: the lane serves the 2025 era only, whose calls ask by server request.
      const valid = codec.validateResult('tools/call', result);
      if (!valid.ok) {
        const era = valid.reason === 'not-in-era';
        throw new ProtocolError(
          era ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams,
          era
            ? 'No wire schema for tools/call in the resolved era'
            : `Invalid tools/call result: ${valid.message}`,
        );
      }
      try {
        return {
          result: codec.encodeResult('tools/call', valid.value),
          jsonrpc: '2.0',
          id,
        } as JSONRPCMessage;
      } catch (error) {
        // Said as the SDK says its own failures: to the server's onerror.
        server.onerror?.(error instanceof Error ? error : new Error(String(error)));
        return {
          jsonrpc: '2.0',
          id,
          error: { code: ProtocolErrorCode.InternalError, message: 'Internal error' },
        } as JSONRPCMessage;
      }
    } catch (error) {
      if (controller.signal.aborted) return undefined;
      const thrown = error as { code?: unknown; message?: string; data?: unknown };
      const code = Number.isSafeInteger(thrown.code)
        ? (thrown.code as number)
        : ProtocolErrorCode.InternalError;
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: codec.encodeErrorCode(code),
          message: thrown.message ?? 'Internal error',
          ...(thrown.data !== undefined ? { data: thrown.data } : {}),
        },
      } as JSONRPCMessage;
    }
  };
  // A microtask later, as the SDK runs its handlers: a request read before this one (logging/
  // setLevel, say) has been handled by then, on either lane.
  return Promise.resolve()
    .then(answer)
    .then((message) => (message ? (send ? send(message) : transport.send(message)) : undefined))
    .catch((error: unknown) => server.onerror?.(error instanceof Error ? error : new Error(String(error))))
    .finally(() => {
      if (inFlight.get(id) === controller) inFlight.delete(id);
    });
}
