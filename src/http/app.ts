/**
 * The HTTP edge on node:http (DESIGN.md §4 gate order): Origin and Host (403) -> content type and
 * size (415, 413) -> JSON (400 / -32700) -> session (404 unknown, 400 missing) -> the SDK's
 * Streamable HTTP transport. Each gate is its own small module.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerHandle } from '../mcp/server.js';
import { checkContentType, DEFAULT_BODY_LIMIT, readJsonBody } from './body.js';
import { checkLoopbackHost } from './host.js';
import { checkOrigin } from './origin.js';
import { type Rejection, reject, sendRejection } from './rejection.js';
import { SessionStore } from './sessions.js';

export interface HttpOptions {
  /** Makes the MCP server of a new session; `sessionId()` is known once initialize completes. */
  createServer(sessionId: () => string | undefined): McpServerHandle;
  /** Origins allowed besides loopback and tauri://, matched exactly. */
  origins?: readonly string[];
  /** Refuse Host names that are not loopback (set when bound to loopback). Default true. */
  loopbackHostOnly?: boolean;
  /** Default 4 MiB. */
  bodyLimit?: number;
  /** Endpoint path. Default `/mcp`. */
  path?: string;
  maxSessions?: number;
  idleMs?: number;
}

export interface HttpHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  sessions: SessionStore;
}

export function createHttpHandler(options: HttpOptions): HttpHandler {
  const sessions = new SessionStore({
    createServer: options.createServer,
    ...(options.maxSessions ? { maxSessions: options.maxSessions } : {}),
    ...(options.idleMs ? { idleMs: options.idleMs } : {}),
  });
  const path = options.path ?? '/mcp';

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<Rejection | undefined> => {
    const gate =
      checkOrigin(req.headers, options.origins) ??
      (options.loopbackHostOnly === false ? undefined : checkLoopbackHost(req.headers));
    if (gate) return gate;
    if ((req.url ?? '/').split('?')[0] !== path)
      return reject(404, -32601, `Not Found: the MCP endpoint is ${path}`);
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return reject(405, -32000, 'Method Not Allowed', { allow: 'GET, POST, DELETE' });
    }

    let body: unknown;
    if (method === 'POST') {
      const type = checkContentType(req.headers['content-type']);
      if (type) return type;
      const read = await readJsonBody(req, options.bodyLimit ?? DEFAULT_BODY_LIMIT);
      if (!read.ok) return read.rejection;
      body = read.value;
    }

    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return reject(404, -32001, 'Session not found: initialize a new session');
      await session.transport.handleRequest(req, res, body);
      return undefined;
    }
    if (method === 'POST' && isInitializeRequest(body)) {
      const transport = await sessions.open();
      await transport.handleRequest(req, res, body);
      if (transport.sessionId === undefined) await transport.close(); // initialize was refused
      return undefined;
    }
    return reject(400, -32000, 'Bad Request: send Mcp-Session-Id, or initialize first');
  };

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const rejection = await handle(req, res);
      if (rejection) sendRejection(res, rejection);
    } catch (error) {
      process.stderr.write(
        `jumperless-mcp: http: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      sendRejection(res, reject(500, -32603, 'Internal error'));
    }
  };
  return Object.assign(handler, { sessions });
}

export interface RunningHttpServer {
  server: Server;
  /** The MCP endpoint, e.g. `http://127.0.0.1:8931/mcp`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens on host:port (port 0 picks a free one). */
export async function startHttpServer(
  options: HttpOptions & { host?: string; port?: number },
): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const handler = createHttpHandler(options);
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    url: `http://${urlHost}:${port}${options.path ?? '/mcp'}`,
    port,
    async close() {
      await handler.sessions.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
