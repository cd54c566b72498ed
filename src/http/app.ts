/**
 * The HTTP edge on node:http, gates in the order of DESIGN.md §4: Origin and Host (403; no Host at
 * all: 400) -> path and method (404, 405) -> content type, size and deadline of the body (415,
 * 413, 408) -> bearer (401, 400, 501, 503, 500; bearer.ts) -> JSON (400 / -32700) -> the era:
 *
 * - 2026-07-28 (the request's `_meta` names it): stateless, the SDK's per-request handler
 *   (`createMcpHandler`) checks the `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers
 *   against the body and serves it with a server made for this one request (modern.ts);
 * - 2025 (`initialize`, then `Mcp-Session-Id`): a session (404 unknown, 400 missing) on the SDK's
 *   Streamable HTTP transport (sessions.ts).
 *
 * Each gate is its own small module (rebinding.ts, body.ts, bearer.ts), and every refusal is a
 * JSON-RPC error body.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { type Capability, denied } from '../core/capabilities.js';
import type { Dispatcher } from '../core/dispatcher.js';
import type { Era } from '../core/era.js';
import { JSONRPC } from '../core/errors.js';
import { isRecord } from '../core/json.js';
import type { OutsideLeaseSource } from '../core/outsideLease.js';
import { type BoardView, createBoardView } from '../core/view.js';
import { precheck } from '../mcp/precheck.js';
import type { McpServerHandle } from '../mcp/server.js';
import { authenticate, type BearerGateOptions } from './bearer.js';
import { checkContentType, parseJson, readBody } from './body.js';
import { attachCaller } from './caller.js';
import { answerClientError } from './clientError.js';
import { claimsModernEra, createModernHandler } from './modern.js';
import { presentedLease } from './outsideLease.js';
import { checkSource, type SourceRules } from './rebinding.js';
import { type Rejection, reject, sendRejection } from './rejection.js';
import { SessionStore } from './sessions.js';
import { watchStream } from './streamAuth.js';
import { serveEvents, servePage, VIEW_PATHS } from './view.js';

export interface HttpAuthOptions extends BearerGateOptions {
  /** Longest time between two checks of the bearer of an open SSE stream. Default 60 s. */
  recheckMs?: number;
}

/** `origins`, `loopbackHostOnly`: who may reach the server (rebinding.ts). */
export interface HttpOptions extends SourceRules {
  /**
   * Makes an MCP server: `legacy`, for a new session (`sessionId()` is known once initialize
   * completes), or `modern`, for one 2026-07-28 request (no session).
   */
  createServer(sessionId: () => string | undefined, era: Era): McpServerHandle;
  /** What changed (the board, the catalog), for 2026-07-28 `subscriptions/listen` streams. */
  dispatcher?: Dispatcher;
  /** Default 4 MiB. */
  bodyLimit?: number;
  /** The whole body must arrive within this. Default 30 s. */
  bodyTimeoutMs?: number;
  /** Endpoint path. Default `/mcp`. */
  path?: string;
  maxSessions?: number;
  idleMs?: number;
  /**
   * Bearer tokens and capabilities. Default: no broker (a bearer gets 501), anonymous callers
   * get every capability but exec and admin.
   */
  auth?: HttpAuthOptions;
  /** Where a caller's outside lease is read (core/outsideLease.ts). Default: none is. */
  outsideLease?: OutsideLeaseSource;
  /** Operator log (broker failures, handler crashes). Default stderr. */
  log?: (line: string) => void;
}

export interface HttpHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  sessions: SessionStore;
  /** Ends the 2026-07-28 streams and calls, and stops following changes. */
  close(): Promise<void>;
}

export function createHttpHandler(options: HttpOptions): HttpHandler {
  const log = options.log ?? ((line: string) => process.stderr.write(`jumperless-mcp: http: ${line}\n`));
  const auth: HttpAuthOptions = { log, ...options.auth };
  const formats = auth.broker?.acceptedTokenFormats() ?? [];
  const makeServer = (sessionId: () => string | undefined, era: Era) => {
    const handle = options.createServer(sessionId, era);
    // A hint for clients (dispatch notes §3 "initialize"); nothing routes on it.
    if (formats.length > 0) {
      handle.server.registerCapabilities({
        experimental: { jumperless: { acceptedTokenFormats: [...formats] } },
      });
    }
    return handle;
  };
  const modern = createModernHandler({
    createServer: () => makeServer(() => undefined, 'modern'),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    log,
  });
  const sessions = new SessionStore({
    createServer: (sessionId) => makeServer(sessionId, 'legacy'),
    ...(options.maxSessions ? { maxSessions: options.maxSessions } : {}),
    ...(options.idleMs ? { idleMs: options.idleMs } : {}),
  });
  const path = options.path ?? '/mcp';
  // The board in view: made when the first page watches, for a server with a dispatcher.
  let view: BoardView | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<Rejection | undefined> => {
    const gate = checkSource(req.headers, options);
    if (gate) return gate;
    const requested = (req.url ?? '/').split('?')[0] ?? '/';
    if (options.dispatcher && VIEW_PATHS.has(requested) && requested !== path) {
      if (req.method !== 'GET') return reject(405, -32000, 'Method Not Allowed', { allow: 'GET' });
      if (requested === '/') {
        servePage(res);
        return undefined;
      }
      const who = await authenticate(req.headers, auth);
      if (!who.ok) return who.rejection;
      view ??= createBoardView(options.dispatcher);
      const refused = serveEvents(req, res, who.caller, view);
      if (refused) return refused;
      const { bearer } = who.caller;
      if (bearer !== undefined && auth.broker) {
        const stop = watchStream(res, {
          broker: auth.broker,
          token: bearer,
          ...(who.caller.expiresAt ? { expiresAt: who.caller.expiresAt } : {}),
          ...(auth.recheckMs ? { recheckMs: auth.recheckMs } : {}),
          end: () => res.end(),
          log,
        });
        res.once('close', stop);
      }
      return undefined;
    }
    if (requested !== path) return reject(404, -32601, `Not Found: the MCP endpoint is ${path}`);
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return reject(405, -32000, 'Method Not Allowed', { allow: 'GET, POST, DELETE' });
    }

    let raw: Buffer | undefined;
    if (method === 'POST') {
      const type = checkContentType(req.headers['content-type']);
      if (type) return type;
      const read = await readBody(req, {
        ...(options.bodyLimit ? { limit: options.bodyLimit } : {}),
        ...(options.bodyTimeoutMs ? { timeoutMs: options.bodyTimeoutMs } : {}),
      });
      if (!read.ok) return read.rejection;
      raw = read.bytes;
    }

    const who = await authenticate(req.headers, auth);
    if (!who.ok) return who.rejection;
    const presented = presentedLease(options.outsideLease, who.caller, req);
    if (!presented.ok) return presented.rejection;
    attachCaller(req, presented.lease ? { ...who.caller, outsideLease: presented.lease } : who.caller);

    let body: unknown;
    if (raw !== undefined) {
      const parsed = parseJson(raw.toString('utf8'));
      if (!parsed.ok) return parsed.rejection;
      body = parsed.value;
      // A request the SDK would drop or answer with a schema dump gets its JSON-RPC error here.
      const early = precheck(body);
      if (early) {
        // What is no JSON-RPC request at all is a bad request, as a body that is not JSON is.
        const status = early.error.code === JSONRPC.invalidRequest ? 400 : 200;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(early));
        return undefined;
      }
    }

    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return reject(404, -32001, 'Session not found: initialize a new session');
      const { bearer } = who.caller;
      if (method === 'GET' && bearer !== undefined && auth.broker) {
        // The one long-lived stream of a session: its token must stay valid while it is open.
        const stop = watchStream(res, {
          broker: auth.broker,
          token: bearer,
          ...(who.caller.expiresAt ? { expiresAt: who.caller.expiresAt } : {}),
          ...(auth.recheckMs ? { recheckMs: auth.recheckMs } : {}),
          end: () => session.transport.closeStandaloneSSEStream(),
          log,
        });
        res.once('close', stop);
      }
      await session.transport.handleRequest(req, res, body);
      return undefined;
    }
    if (method === 'POST' && claimsModernEra(body)) {
      const { bearer } = who.caller;
      if (isListen(body) && !who.caller.capabilities.includes(READ)) {
        // A listen stream tells every change of the board's resources: a caller who may not read
        // them gets none (the SDK serves listen itself, so it is refused here, before it).
        const refusal = denied(
          'subscriptions/listen',
          READ,
          new Set(who.caller.capabilities as Capability[]),
        );
        const id =
          isRecord(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: { code: refusal.code, message: refusal.message, data: refusal.data },
          }),
        );
        return undefined;
      }
      if (isListen(body) && bearer !== undefined && auth.broker) {
        // A 2026-07-28 listen stream lives as long as a 2025 GET stream: its token must stay valid too.
        const stop = watchStream(res, {
          broker: auth.broker,
          token: bearer,
          ...(who.caller.expiresAt ? { expiresAt: who.caller.expiresAt } : {}),
          ...(auth.recheckMs ? { recheckMs: auth.recheckMs } : {}),
          // The SDK writes the stream: end it under the SDK, whose late writes then go nowhere.
          end: () => {
            res.on('error', () => {});
            res.end();
          },
          log,
        });
        res.once('close', stop);
      }
      await modern.serve(req, res, body);
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
      log(error instanceof Error ? error.message : String(error));
      sendRejection(res, reject(500, -32603, 'Internal error'));
    }
  };
  return Object.assign(handler, {
    sessions,
    close: async () => {
      view?.close();
      await modern.close();
      await sessions.closeAll();
    },
  });
}

export interface RunningHttpServer {
  server: Server;
  /** The MCP endpoint, e.g. `http://127.0.0.1:8931/mcp`. */
  url: string;
  port: number;
  /** The 2025 sessions open now (2026-07-28 requests keep none). */
  sessions: SessionStore;
  close(): Promise<void>;
}

/** Listens on host:port (port 0 picks a free one). */
export async function startHttpServer(
  options: HttpOptions & { host?: string; port?: number },
): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const handler = createHttpHandler(options);
  // The response being written on each socket, so a late client error never corrupts it.
  const inFlight = new WeakMap<Socket, ServerResponse>();
  // A request without Host is ours to refuse (checkHostPresent), in JSON, not Node's empty 400.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    inFlight.set(req.socket, res);
    res.once('finish', () => {
      if (inFlight.get(req.socket) === res) inFlight.delete(req.socket);
    });
    void handler(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(error, socket, inFlight.get(socket)),
  );
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
    sessions: handler.sessions,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const READ: Capability = 'jumperless.read';

const isListen = (body: unknown): boolean => isRecord(body) && body.method === 'subscriptions/listen';
