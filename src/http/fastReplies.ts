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
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

type Id = string | number;

class Reply {
  private streaming = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly sessionId: string,
  ) {}

  /** One message for the call: its answer ends the reply. */
  deliver(message: JSONRPCMessage, final: boolean): void {
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

  /** The transport, with a fast call's messages taken to its reply. */
  wrap<T extends Transport>(transport: T): T {
    const open = this.open;
    return new Proxy(transport, {
      get(target, property) {
        if (property === 'send') {
          return (message: JSONRPCMessage, options?: TransportSendOptions) => {
            const answer = 'id' in message && !('method' in message) ? message.id : undefined;
            const id = answer ?? options?.relatedRequestId;
            const reply = id === undefined ? undefined : open.get(id);
            if (!reply || id === undefined) return target.send(message, options);
            if (answer !== undefined) open.delete(id);
            reply.deliver(message, answer !== undefined);
            return Promise.resolve();
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
      set(target, property, value) {
        return Reflect.set(target, property, value, target);
      },
    });
  }

  /**
   * Answers on `res` the call that `start` runs; false, with nothing written, when `start`
   * declines it (the SDK's turn).
   */
  serve(res: ServerResponse, id: Id, sessionId: string, start: () => Promise<void> | undefined): boolean {
    if (this.open.has(id)) return false;
    const reply = new Reply(res, sessionId);
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
