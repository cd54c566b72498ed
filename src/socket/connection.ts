/**
 * One socket connection: frames in, one response per request, in order (ATD frames carry no
 * request ids, so order is the only way to pair them). Requests run one at a time; reading
 * pauses while too many wait. A frame that breaks the framing (too large, not UTF-8, not
 * JSON, or never finished) gets an error frame and ends this connection only; a well-framed
 * request of the wrong shape gets an error frame and the connection carries on. Tool calls get
 * a signal that fires when the peer hangs up or the server stops.
 */
import type { Socket } from 'node:net';
import { intersectCapabilities } from '../core/capabilities.js';
import { encodeFrame, FrameDecoder, FrameError } from '../device/frames.js';
import type { SocketToolHandler } from './handler.js';
import {
  parseRequest,
  type SocketErrorFrame,
  type SocketRequest,
  type SocketResponse,
  SUPPORTED_TIERS,
} from './messages.js';

export interface ConnectionOptions {
  id: number;
  handler: SocketToolHandler;
  /** The operator allow-list (`--grant-capability`). */
  allowedCapabilities: readonly string[];
  serverVersion: string;
  maxFrameBytes: number;
  /** A frame started but not finished for this long ends the connection. */
  frameTimeoutMs: number;
  log: (line: string) => void;
}

/** Waiting requests before the connection stops reading. */
const MAX_QUEUED = 32;
/** ATD's code for a cursor it cannot use (dispatch notes §2.1): we never page, so every cursor is one. */
const CURSOR_INVALID = 1021;

type Item = { kind: 'request'; value: unknown } | { kind: 'fatal'; message: string };

export function serveConnection(socket: Socket, options: ConnectionOptions): { abort(): void } {
  const decoder = new FrameDecoder(options.maxFrameBytes);
  const abort = new AbortController();
  const queue: Item[] = [];
  /** Per-connection identity: nothing before `hello` (dispatch notes §2.1). */
  let callerId: string | undefined;
  let capabilities: readonly string[] = [];
  let working = false;
  let broken = false;
  let peerEnded = false;
  let partialTimer: NodeJS.Timeout | undefined;

  const stopTimer = () => {
    clearTimeout(partialTimer);
    partialTimer = undefined;
  };

  const breakWith = (message: string) => {
    broken = true;
    stopTimer();
    socket.pause();
    queue.push({ kind: 'fatal', message });
  };

  socket.on('data', (chunk: Buffer) => {
    if (broken) return;
    const { messages, error } = decoder.push(chunk);
    for (const value of messages) queue.push({ kind: 'request', value });
    if (error) breakWith(error.message);
    else if (decoder.midFrame) {
      // Restarted on every chunk: a slow frame that keeps moving is fine, a stalled one is not.
      stopTimer();
      partialTimer = setTimeout(() => {
        breakWith(`incomplete frame: nothing more arrived for ${options.frameTimeoutMs} ms`);
        void drain();
      }, options.frameTimeoutMs);
    } else stopTimer();
    if (queue.length >= MAX_QUEUED) socket.pause();
    void drain();
  });
  socket.on('end', () => {
    // The peer sent all it will send. A Unix socket cannot tell a half-close from a client that
    // is gone, and a board call must not outlive a client that left: so running and queued
    // calls are cancelled, yet every request still gets its answer (allowHalfOpen), then we close.
    peerEnded = true;
    abort.abort(new Error('socket peer closed the connection'));
    if (decoder.midFrame && !broken) breakWith('connection ended in the middle of a frame');
    void drain();
  });
  socket.on('close', () => {
    stopTimer();
    abort.abort(new Error('socket connection closed'));
  });
  // EPIPE, ECONNRESET: 'close' follows and aborts any running call.
  socket.on('error', () => undefined);

  async function drain(): Promise<void> {
    if (working) return;
    working = true;
    try {
      for (let item = queue.shift(); item && !socket.destroyed; item = queue.shift()) {
        if (item.kind === 'fatal') {
          queue.length = 0;
          await send({ type: 'error', message: item.message, retryable: false });
          socket.end(() => socket.destroy());
          return;
        }
        await send(await respond(item.value));
        if (!broken && queue.length < MAX_QUEUED / 2) socket.resume();
      }
      if (peerEnded && queue.length === 0 && !socket.destroyed) socket.end();
    } finally {
      working = false;
    }
  }

  async function respond(value: unknown): Promise<SocketResponse> {
    const parsed = parseRequest(value);
    if (!parsed.ok) return { type: 'error', message: parsed.message, retryable: false };
    const request = parsed.request;
    try {
      return await answer(request);
    } catch (error) {
      options.log(`connection ${options.id}: ${request.type} failed: ${describe(error)}`);
      return { type: 'error', message: `internal error while handling ${request.type}`, retryable: false };
    }
  }

  async function answer(request: SocketRequest): Promise<SocketResponse> {
    switch (request.type) {
      case 'ping':
        return { type: 'pong' };
      case 'hello': {
        callerId = request.client_id ?? undefined;
        capabilities = intersectCapabilities(
          request.requested_capabilities,
          options.allowedCapabilities,
        ).granted;
        return {
          type: 'hello_ack',
          granted_capabilities: [...capabilities],
          server_version: options.serverVersion,
          supported_tiers: [...SUPPORTED_TIERS],
        };
      }
      case 'tool_list':
        return { type: 'tool_list', tools: await options.handler.listTools(capabilities) };
      case 'tool_schema': {
        const schema = await options.handler.toolSchema(request.tool_id);
        if (schema === undefined) return unknownTool(request.tool_id);
        return { type: 'tool_schema', schema };
      }
      case 'run_tool': {
        const outcome = await options.handler.runTool(request.tool_id, request.args, {
          callerId,
          connectionId: options.id,
          capabilities,
          dryRun: request.dry_run,
          signal: abort.signal,
        });
        if (outcome.kind === 'result') {
          return {
            type: 'tool_result',
            tool_id: request.tool_id,
            result: outcome.result,
            success: outcome.success,
            dry_run: request.dry_run,
          };
        }
        const frame: SocketErrorFrame = { type: 'error', message: outcome.message };
        if (outcome.code !== undefined) frame.code = outcome.code;
        frame.retryable = outcome.retryable ?? false;
        if (outcome.details !== undefined) frame.details = outcome.details;
        return frame;
      }
      case 'run_tool_continue':
        return {
          type: 'error',
          message: 'unknown or expired cursor: this server returns whole results and never pages',
          code: CURSOR_INVALID,
          retryable: false,
        };
    }
  }

  /** Writes one frame, waiting for the peer to read if its buffer is full. */
  async function send(response: SocketResponse): Promise<void> {
    if (socket.destroyed || !socket.writable) return;
    let frame: Buffer;
    try {
      frame = encodeFrame(response, options.maxFrameBytes);
    } catch (error) {
      const message =
        error instanceof FrameError
          ? `the ${response.type} answer is over the frame limit (${error.message})`
          : `internal error: the ${response.type} answer cannot be encoded as JSON`;
      if (!(error instanceof FrameError)) options.log(`connection ${options.id}: ${describe(error)}`);
      frame = encodeFrame({ type: 'error', message, retryable: false } satisfies SocketErrorFrame);
    }
    if (socket.write(frame)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }

  return {
    abort: () => {
      abort.abort(new Error('socket server stopped'));
      socket.destroy();
    },
  };
}

function unknownTool(toolId: string): SocketErrorFrame {
  return { type: 'error', message: `unknown tool: ${toolId}`, retryable: false };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
