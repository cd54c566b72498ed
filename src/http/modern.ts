/**
 * MCP 2026-07-28 over HTTP: stateless, so any replica can answer any request. The SDK's handler
 * (`createMcpHandler`, 2025 traffic refused: our sessions serve it) checks the envelope and the
 * `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers against the body, makes a server for
 * the request, and answers in plain JSON unless the call streams (progress, a log line): then SSE.
 * `subscriptions/listen` streams are the SDK's too; this process publishes the board's and the
 * catalog's changes to them once, whatever the number of requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { type Dispatcher, followChanges } from '../core/dispatcher.js';
import { isModernProtocol } from '../core/era.js';
import type { McpServerHandle } from '../mcp/server.js';

export interface ModernOptions {
  /** A server for one request. */
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

export function createModernHandler(options: ModernOptions): ModernHandler {
  const handler = createMcpHandler(() => options.createServer().server, {
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
    serve: (req, res, body) => toNode(req as never, res as never, body),
    async close() {
      unfollow();
      await handler.close();
    },
  };
}
