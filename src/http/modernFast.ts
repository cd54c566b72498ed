/**
 * A plain 2026-07-28 `tools/call` served without the SDK's HTTP entry (issue 12): the entry turns
 * every node request into a Web Request and its answer back, and classifies it again; for a
 * board-free call that costs more than the call. Here the request is classified by the SDK's own
 * classifier, and handed straight to a server of the pool that the SDK's entry has already set up
 * for 2026-07-28 (so everything the server does with it, envelope and result encoding included, is
 * the SDK's); only the transport is ours, writing the answer to the node response as the SDK's
 * per-request transport would: plain JSON, or SSE from the first message that is not the answer.
 * A request the entry would refuse or read differently, or no set-up server at hand, stays the SDK's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type MessageClassification,
  PROTOCOL_VERSION_META_KEY,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { isRecord, MODERN_PROTOCOL } from '../contract/index.js';
import type { McpServerHandle } from '../mcp/server.js';

/** The revision this lane speaks: exactly it (a later one may change the envelope). */
const MODERN = MODERN_PROTOCOL;
/** The SDK's keep-alive comment period on a per-request SSE stream. */
const KEEP_ALIVE_MS = 15_000;
/** The one in-handler error the SDK's per-request transport answers with an HTTP status (400). */
const MISSING_CLIENT_CAPABILITY = -32021;
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
]);
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** How many calls took this lane in this process: tests read it to know which lane answered. */
export const modernFastStats = { calls: 0 };

/**
 * The request's classification when it is a plain 2026-07-28 tools/call whose headers say exactly
 * what its body says; undefined otherwise (the SDK's entry answers it, errors and all).
 */
export function plainModernCall(req: IncomingMessage, body: unknown): MessageClassification | undefined {
  if (!isRecord(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0') return undefined;
  const { id, params } = body;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isRecord(params) || typeof params.name !== 'string') return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  if ('arguments' in params && !isRecord(params.arguments)) return undefined;
  const meta = params._meta;
  if (!isRecord(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN) return undefined;
  // The envelope and a progress token: no log level (no log stream), no retry round.
  for (const key in meta) if (!ENVELOPE_KEYS.has(key) && key !== 'progressToken') return undefined;
  const { headers } = req;
  if (!isJsonContentType(headers['content-type'] ?? null)) return undefined;
  if (headers['mcp-protocol-version'] !== MODERN || headers['mcp-method'] !== 'tools/call') return undefined;
  // A name that needs no encoding in a header is sent as is; anything else the SDK decodes first.
  if (!/^[A-Za-z0-9_.-]+$/.test(params.name) || headers['mcp-name'] !== params.name) return undefined;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: MODERN,
    mcpMethodHeader: 'tools/call',
    mcpNameHeader: params.name,
    body,
  } as Parameters<typeof classifyInboundRequest>[0]);
  if (outcome.kind !== 'modern' || outcome.messageKind !== 'request') return undefined;
  return outcome.classification;
}

/** One exchange's transport, writing to the node response. */
class ResponseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private streaming = false;
  private closed = false;
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly id: string | number,
  ) {
    // The client went away before the answer: the call is stopped, as the SDK's entry stops it.
    res.once('close', () => void this.close());
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.closed) return;
    const answer = 'id' in message && !('method' in message);
    if ((answer ? message.id : options?.relatedRequestId) !== this.id) return;
    const text = JSON.stringify(message);
    if (answer && !this.streaming) {
      const status = 'error' in message && message.error.code === MISSING_CLIENT_CAPABILITY ? 400 : 200;
      this.res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    } else {
      this.stream();
      this.res.write(`event: message\ndata: ${text}\n\n`);
      if (answer) this.res.end();
    }
    if (answer) queueMicrotask(() => void this.close());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    if (this.streaming && !this.res.writableEnded) this.res.end();
    this.onclose?.();
  }

  private stream(): void {
    if (this.streaming) return;
    this.streaming = true;
    this.res.writeHead(200, SSE_HEADERS);
    this.keepAlive = setInterval(() => {
      if (!this.res.writableEnded) this.res.write(': keepalive\n\n');
    }, KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }
}

/**
 * Serves `body` on `handle`'s server (set up for 2026-07-28 by the SDK's entry, idle), with the
 * classification the SDK's classifier gave it.
 */
export async function serveModernFast(
  handle: McpServerHandle,
  req: IncomingMessage,
  res: ServerResponse,
  body: Record<string, unknown>,
  classification: MessageClassification,
): Promise<void> {
  modernFastStats.calls++;
  const transport = new ResponseTransport(res, body.id as string | number);
  await handle.server.connect(transport);
  const authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth;
  transport.onmessage?.(
    body as JSONRPCMessage,
    {
      classification,
      ...(authInfo ? { authInfo } : {}),
    } as Parameters<NonNullable<Transport['onmessage']>>[1],
  );
}
