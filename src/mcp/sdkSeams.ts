/**
 * The two pieces of the SDK's `Server` (2.4.0) that the fast lane (fastLane.ts) borrows instead of
 * copying: the negotiated era's wire codec, which checks a `tools/call` request and shapes its
 * result (key order included) exactly as the SDK's own handler wrapper does, and the map of
 * in-flight requests' abort controllers, so `notifications/cancelled` and a closed transport stop
 * a fast call through the SDK's own code. Neither is public API: a test (fastLane.test.ts) fails
 * the day either moves, instead of answers quietly changing shape.
 */
import type { Server } from '@modelcontextprotocol/server';

type Outcome<T> = { ok: true; value: T } | { ok: false; message: string; reason?: string };

export interface WireCodec {
  validateRequest(method: string, request: unknown): Outcome<unknown>;
  validateResult(method: string, result: unknown): Outcome<unknown>;
  encodeResult(method: string, result: unknown, serverInfo?: unknown): unknown;
  encodeErrorCode(code: number): number;
}

interface ServerInternals {
  _wireCodec(): WireCodec;
  _requestHandlerAbortControllers: Map<string | number, AbortController>;
}

export interface Seams {
  codec: WireCodec;
  inFlight: Map<string | number, AbortController>;
}

/** The server's codec and abort map, or undefined when this SDK build has neither. */
export function seamsOf(server: Server): Seams | undefined {
  const inner = server as unknown as Partial<ServerInternals>;
  if (typeof inner._wireCodec !== 'function' || !(inner._requestHandlerAbortControllers instanceof Map)) {
    return undefined;
  }
  return { codec: inner._wireCodec(), inFlight: inner._requestHandlerAbortControllers };
}
