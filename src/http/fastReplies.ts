/**
 * The HTTP replies of a 2025 session's fast-lane calls (mcp/fastLane.ts). The SDK's transport
 * never hears of such a call, so what the session's server sends for it (its answer, a log line, a
 * question for the client) is taken off the transport here and written to the call's own response:
 * plain JSON when the answer is all there is, an SSE stream from the first message that is not
 * the answer, as the SDK's transport would stream it (issue 12: plain JSON unless the call
 * streams). The client's answer to a question comes back in a POST of its own, through the SDK
 * transport, to the server that asked.
 */
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { interceptSend } from '../mcp/interceptSend.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

type Id = string | number;

export interface ReplyTimes {
  /** A call quiet this long turns its reply into a stream, so that a proxy sees bytes. Default 10 s. */
  quietMs: number;
  /** Then a keep-alive comment this often, as the SDK's streams send one. Default 15 s. */
  keepAliveMs: number;
}

const REPLY_TIMES: ReplyTimes = { quietMs: 10_000, keepAliveMs: 15_000 };

class Reply {
  private streaming = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly sessionId: string,
    private readonly times: ReplyTimes,
  ) {
    // A long quiet call (ask_user waits for a person) must not look idle to a proxy in between.
    this.timer = setTimeout(() => this.keepAlive(), times.quietMs).unref();
    res.once('close', () => clearTimeout(this.timer));
  }

  private keepAlive(): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.stream();
    this.res.write(': keepalive\n\n');
    this.timer = setTimeout(() => this.keepAlive(), this.times.keepAliveMs).unref();
  }

  /** One message for the call: its answer ends the reply. */
  deliver(message: JSONRPCMessage, final: boolean): void {
    if (final) clearTimeout(this.timer);
    if (this.res.writableEnded || this.res.destroyed) return;
    const text = JSON.stringify(message);
    if (final && !this.streaming) {
      this.res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': this.sessionId })
        .end(text);
      return;
    }
    this.stream();
    this.res.write(`event: message\ndata: ${text}\n\n`);
    if (final) this.res.end();
  }

  /** The session closed before the answer: end the reply as the SDK ends its streams. */
  abandon(): void {
    clearTimeout(this.timer);
    if (this.res.writableEnded || this.res.destroyed) return;
    this.stream();
    this.res.end();
  }

  private stream(): void {
    if (this.streaming) return;
    this.streaming = true;
    this.res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
  }
}

export class FastReplies {
  private readonly open = new Map<Id, Reply>();

  constructor(private readonly times: ReplyTimes = REPLY_TIMES) {}

  /** The transport, with a fast call's messages taken to its reply. */
  wrap<T extends Transport>(transport: T): T {
    const open = this.open;
    return interceptSend(transport, (message, options, send) => {
      const answer = 'id' in message && !('method' in message) ? message.id : undefined;
      const id = answer ?? options?.relatedRequestId;
      const reply = id === undefined ? undefined : open.get(id);
      if (!reply || id === undefined) return send(message, options);
      if (answer !== undefined) open.delete(id);
      reply.deliver(message, answer !== undefined);
      return Promise.resolve();
    });
  }

  /**
   * Answers on `res` the call that `start` runs; false, with nothing written, when `start`
   * declines it (the SDK's turn).
   */
  serve(res: ServerResponse, id: Id, sessionId: string, start: () => Promise<void> | undefined): boolean {
    if (this.open.has(id)) {
      // Handed to the SDK, its answer would be taken for the first call's (wrap routes by id).
      const error = {
        code: -32600,
        message: `Invalid Request: id ${JSON.stringify(id)} is already in flight`,
      };
      res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId })
        .end(JSON.stringify({ jsonrpc: '2.0', id, error }));
      return true;
    }
    const reply = new Reply(res, sessionId, this.times);
    this.open.set(id, reply);
    const running = start();
    if (running === undefined) {
      this.open.delete(id);
      return false;
    }
    // A cancelled call sends no answer: its reply ends with nothing in it, not never.
    void running.finally(() => {
      if (this.open.get(id) !== reply) return;
      this.open.delete(id);
      reply.abandon();
    });
    return true;
  }

  /** The session closed: no answer will come. */
  abandonAll(): void {
    for (const reply of this.open.values()) reply.abandon();
    this.open.clear();
  }
}
