/**
 * MCP 2026-07-28 over HTTP: stateless, so any replica can answer any request. The SDK's handler
 * (`createMcpHandler`, 2025 traffic refused: our sessions serve it) checks the envelope and the
 * `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers against the body, takes a server for
 * the request (reused from a small pool once the SDK has closed it), and answers in plain JSON
 * unless the call streams (progress, a log line): then SSE. A plain tools/call skips the entry, on
 * servers the entry has set up that stay connected (modernFast.ts). `subscriptions/listen` streams
 * are the SDK's too; this process publishes the board's and the catalog's changes to them once,
 * whatever the number of requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { isModernProtocol } from '../contract/index.js';
import type { Dispatcher } from '../dispatch/index.js';
import { seamsOf } from '../mcp/sdkSeams.js';
import { followChanges, type McpServerHandle } from '../mcp/server.js';
import { createModernLane } from './modernFast.js';

export interface ModernOptions {
  /** A server for one request at a time (the SDK's entry's, or the fast lane's, which keeps it). */
  createServer(): McpServerHandle;
  dispatcher?: Dispatcher;
  /** Bytes; our body gate has read the body already, this only keeps the SDK's cap in line. */
  bodyLimit?: number;
  log(line: string): void;
}

export interface ModernHandler {
  /** Serves one request whose body (already parsed) claims the 2026-07-28 era. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Whether a body carries the per-request envelope naming a 2026-07-28-or-later revision. */
export function claimsModernEra(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' && isModernProtocol(version);
}

/** Servers kept for the next requests: making one costs more than the call it serves. */
const POOL = 32;

export function createModernHandler(options: ModernOptions): ModernHandler {
  // A server serves one request at a time and is handed out again only once the SDK has closed
  // it after its exchange (nothing of a request survives close but the handlers registered once).
  const idle: McpServerHandle[] = [];
  const lend = (handle: McpServerHandle): McpServerHandle => {
    let returned = false;
    handle.server.onclose = () => {
      if (returned || idle.length >= POOL) return;
      returned = true;
      idle.push(handle);
    };
    return handle;
  };
  const take = (): McpServerHandle => lend(idle.pop() ?? options.createServer());
  // The fast lane (modernFast.ts) adopts only a server the SDK's entry has set up for 2026-07-28;
  // it keeps it from then on.
  const lane = createModernLane(() => {
    const handle = idle.at(-1);
    if (
      !handle ||
      handle.server.transport ||
      !isModernProtocol(handle.server.getNegotiatedProtocolVersion()) ||
      !seamsOf(handle.server)
    )
      return undefined;
    idle.pop();
    return handle;
  });
  const handler = createMcpHandler(() => take().server, {
    legacy: 'reject',
    responseMode: 'auto',
    ...(options.bodyLimit ? { maxRequestBodySize: options.bodyLimit } : {}),
    onerror: (error) => options.log(`2026-07-28: ${error.message}`),
  });
  const toNode = toNodeHandler(handler, { onerror: (error) => options.log(error.message) });
  const unfollow = options.dispatcher
    ? followChanges(options.dispatcher, {
        resourceUpdated: (uri) => handler.notify.resourceUpdated(uri),
        toolsChanged: () => handler.notify.toolsChanged(),
      })
    : () => {};
  return {
    serve: (req, res, body) => lane.serve(req, res, body) ?? toNode(req as never, res as never, body),
    async close() {
      unfollow();
      idle.length = 0;
      await lane.close();
      await handler.close();
    },
  };
}
