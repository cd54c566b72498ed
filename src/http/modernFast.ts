/**
 * A plain 2026-07-28 `tools/call` served without the SDK's HTTP entry (issue 12): the entry turns
 * every node request into a Web Request and its answer back, classifies it again, and connects a
 * server to a fresh transport and closes it again, each of which costs more than a board-free call.
 * Here the request is classified by the SDK's own classifier (its verdict kept per envelope), and
 * handed to a server the SDK's entry has set up for 2026-07-28 that the lane keeps connected, one
 * call at a time (so everything the server does with it, envelope and result encoding included, is
 * the SDK's); only the transport is ours, writing the answer to the node response as the SDK's
 * per-request transport would: plain JSON, or SSE from the first message that is not the answer.
 * A request the entry would refuse or read differently, or no server at hand, stays the SDK's.
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
import { toolsCallParams } from '../mcp/fastLane.js';
import { seamsOf } from '../mcp/sdkSeams.js';
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
const SEND_FAILED = { code: -32603, message: 'Internal error: the answer could not be sent' };
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** How many calls took this lane in this process: tests read it to know which lane answered. */
export const modernFastStats = { calls: 0 };

/** The classifier's verdicts on envelopes seen, by envelope: as many as there are kinds of client. */
const verdicts = new Map<string, MessageClassification>();
const VERDICTS = 256;
/** Characters of an envelope's key: a client's info and capabilities are a few hundred. */
const VERDICT_KEY_LIMIT = 2048;

/**
 * The request's classification when it is a plain 2026-07-28 tools/call whose headers say exactly
 * what its body says; undefined otherwise (the SDK's entry answers it, errors and all).
 */
export function plainModernCall(req: IncomingMessage, body: unknown): MessageClassification | undefined {
  const params = toolsCallParams(body);
  if (!params || typeof params.name !== 'string') return undefined;
  const meta = params._meta;
  if (!isRecord(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN) return undefined;
  // The envelope and a progress token: no log level (no log stream), no retry round.
  for (const key in meta) if (!ENVELOPE_KEYS.has(key) && key !== 'progressToken') return undefined;
  const { headers } = req;
  if (!isJsonContentType(headers['content-type'] ?? null)) return undefined;
  if (headers['mcp-protocol-version'] !== MODERN || headers['mcp-method'] !== 'tools/call') return undefined;
  // A name that needs no encoding in a header is sent as is; anything else the SDK decodes first.
  if (!/^[A-Za-z0-9_.-]+$/.test(params.name) || headers['mcp-name'] !== params.name) return undefined;
  // The classifier's verdict rests on what was checked above and on the envelope's two values;
  // the same client sends the same envelope every time, so its verdict is reused. Only a small
  // envelope is kept, and none whose text has a null in it: an absent value and an infinite
  // number (1e400) both print as null, beside a valid envelope that may print the same.
  const token = meta.progressToken;
  let key: string | undefined =
    token === undefined || typeof token === 'string' || Number.isSafeInteger(token)
      ? JSON.stringify([meta[CLIENT_INFO_META_KEY], meta[CLIENT_CAPABILITIES_META_KEY]])
      : undefined;
  if (key !== undefined && (key.length > VERDICT_KEY_LIMIT || key.includes('null'))) key = undefined;
  const known = key === undefined ? undefined : verdicts.get(key);
  if (known) return known;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: MODERN,
    mcpMethodHeader: 'tools/call',
    mcpNameHeader: params.name,
    body,
  } as Parameters<typeof classifyInboundRequest>[0]);
  if (outcome.kind !== 'modern' || outcome.messageKind !== 'request') return undefined;
  if (key !== undefined) {
    if (verdicts.size >= VERDICTS) verdicts.clear();
    verdicts.set(key, outcome.classification);
  }
  return outcome.classification;
}

/** One exchange: the node response a call's answer and its messages go to. */
interface Exchange {
  readonly res: ServerResponse;
  readonly id: string | number;
  streaming: boolean;
  keepAlive: NodeJS.Timeout | undefined;
  /** The answer went out: the server may serve another call. */
  readonly answered: () => void;
}

/**
 * A lane server's transport: stays connected (connecting and closing per request cost the SDK an
 * error object, an abort and its listeners every time) and serves one exchange at a time,
 * writing to the node response as the SDK's per-request transport would.
 */
class LaneTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private exchange: Exchange | undefined;
  private closed = false;

  async start(): Promise<void> {}

  /** Takes the exchange; false, having taken nothing, when its client has gone already. */
  begin(res: ServerResponse, id: string | number, answered: () => void): boolean {
    if (res.destroyed || res.writableEnded) return false;
    const exchange: Exchange = { res, id, streaming: false, keepAlive: undefined, answered };
    this.exchange = exchange;
    // The client went away before the answer: the call is stopped, as the SDK's entry stops it
    // (by closing the exchange's transport, which aborts what it runs). This server is done.
    res.once('close', () => {
      if (this.exchange === exchange) void this.close();
    });
    return true;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const exchange = this.exchange;
    if (!exchange) return;
    const answer = 'id' in message && !('method' in message);
    if ((answer ? message.id : options?.relatedRequestId) !== exchange.id) return;
    const { res } = exchange;
    try {
      const text = JSON.stringify(message);
      if (answer && !exchange.streaming) {
        const status = 'error' in message && message.error.code === MISSING_CLIENT_CAPABILITY ? 400 : 200;
        res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      } else {
        this.stream(exchange);
        res.write(`event: message\ndata: ${text}\n\n`);
        if (answer) res.end();
      }
    } catch (error) {
      // Not sent (a value JSON cannot carry): the client still gets an answer, and this server,
      // whose exchange is broken, leaves the lane.
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: exchange.id, error: SEND_FAILED }));
      } else if (!res.writableEnded) res.end();
      void this.close();
      throw error;
    }
    if (answer) {
      this.exchange = undefined;
      clearInterval(exchange.keepAlive);
      exchange.answered();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const exchange = this.exchange;
    this.exchange = undefined;
    if (exchange) {
      clearInterval(exchange.keepAlive);
      if (exchange.streaming && !exchange.res.writableEnded) exchange.res.end();
    }
    this.onclose?.();
  }

  private stream(exchange: Exchange): void {
    if (exchange.streaming) return;
    exchange.streaming = true;
    exchange.res.writeHead(200, SSE_HEADERS);
    exchange.keepAlive = setInterval(() => {
      if (!exchange.res.writableEnded) exchange.res.write(': keepalive\n\n');
    }, KEEP_ALIVE_MS);
    exchange.keepAlive.unref();
  }
}

interface LaneServer {
  readonly handle: McpServerHandle;
  readonly transport: LaneTransport;
}

export interface ModernLane {
  /**
   * Serves a plain 2026-07-28 tools/call; undefined, having done nothing, when the SDK's entry
   * must (not plain, or no server at hand).
   */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> | undefined;
  close(): Promise<void>;
}

/** The most servers the lane keeps: calls beyond as many at once go by the SDK's entry. */
const LANE_SERVERS = 32;

/**
 * The lane's servers, each connected once to a LaneTransport and serving one call at a time.
 * A server joins the lane from `adopt`: one the SDK's entry has set up for 2026-07-28, idle, whose
 * in-flight map the lane can read (sdkSeams.ts; without it no server could be known free again).
 */
export function createModernLane(adopt: () => McpServerHandle | undefined): ModernLane {
  const free: LaneServer[] = [];
  const all = new Set<LaneServer>();
  // A server is free again once the SDK has also let go of its call (its abort controller is gone:
  // the next call may carry the same id, from another client).
  const takeFree = (): LaneServer | undefined => {
    for (let at = free.length - 1; at >= 0; at--) {
      const lane = free[at] as LaneServer;
      if (seamsOf(lane.handle.server)?.inFlight.size === 0) return free.splice(at, 1)[0];
    }
    return undefined;
  };
  const join = async (handle: McpServerHandle): Promise<LaneServer> => {
    const lane = { handle, transport: new LaneTransport() };
    all.add(lane);
    handle.server.onclose = () => {
      all.delete(lane);
      const at = free.indexOf(lane);
      if (at >= 0) free.splice(at, 1);
    };
    await handle.server.connect(lane.transport);
    return lane;
  };
  const run = (
    lane: LaneServer,
    req: IncomingMessage,
    res: ServerResponse,
    body: Record<string, unknown>,
    classification: MessageClassification,
  ) => {
    // The client left while the server joined: nothing runs, and the server is free again.
    if (!lane.transport.begin(res, body.id as string | number, () => free.push(lane))) {
      free.push(lane);
      return;
    }
    modernFastStats.calls++;
    const authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth;
    lane.transport.onmessage?.(
      body as JSONRPCMessage,
      {
        classification,
        ...(authInfo ? { authInfo } : {}),
      } as Parameters<NonNullable<Transport['onmessage']>>[1],
    );
  };
  return {
    serve(req, res, body) {
      const classification = plainModernCall(req, body);
      if (!classification) return undefined;
      const record = body as Record<string, unknown>;
      const lane = takeFree();
      if (lane) {
        run(lane, req, res, record, classification);
        return Promise.resolve();
      }
      const handle = all.size < LANE_SERVERS ? adopt() : undefined;
      if (!handle) return undefined;
      return join(handle).then((joined) => run(joined, req, res, record, classification));
    },
    async close() {
      free.length = 0;
      await Promise.all([...all].map((lane) => lane.handle.server.close().catch(() => {})));
      all.clear();
    },
  };
}
