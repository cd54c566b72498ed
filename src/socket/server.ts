/**
 * The native socket server (`--socket PATH`, DESIGN.md §4 Protocol): ATD frames over a Unix
 * socket of mode 0600, so only this user can connect; that mode is the trust boundary
 * (dispatch notes §2.1), which is why a `hello` may claim any client id.
 */
import { statSync, unlinkSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { encodeFrame, MAX_FRAME_BYTES } from '../device/frames.js';
import { defaultSocketPath, listenPrivately, prepareSocketPath } from '../device/socketPath.js';
import { serveConnection } from './connection.js';
import type { SocketToolHandler } from './handler.js';

export interface SocketServerOptions {
  /** Default: `$XDG_RUNTIME_DIR/jumperless-mcp.sock`, else a private folder in the temp dir. */
  path?: string;
  handler: SocketToolHandler;
  /** The operator allow-list: a `hello` gets what it asks for intersected with this. */
  allowedCapabilities: readonly string[];
  /** Sent in `hello_ack`, e.g. `jumperless-mcp 0.1.0`. */
  serverVersion: string;
  /** Default 10 MiB, the ATD cap. */
  maxFrameBytes?: number;
  /** A started frame that stalls this long closes its connection. Default 30 s. */
  frameTimeoutMs?: number;
  /** Connections beyond this get an error frame and are closed. Default 64. */
  maxConnections?: number;
  /** Operator log (handler crashes); default stderr. */
  log?: (line: string) => void;
}

export interface SocketServer {
  readonly path: string;
  /** Open connections now. */
  connectionCount(): number;
  /** Stops listening, aborts running calls, closes connections, removes the socket file. */
  close(): Promise<void>;
}

export async function startSocketServer(options: SocketServerOptions): Promise<SocketServer> {
  const path = options.path ?? defaultSocketPath();
  const log = options.log ?? ((line: string) => process.stderr.write(`jumperless-mcp socket: ${line}\n`));
  const maxConnections = options.maxConnections ?? 64;
  await prepareSocketPath(path);

  const open = new Map<Socket, { abort(): void }>();
  let nextId = 1;
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    if (open.size >= maxConnections) {
      socket.on('error', () => undefined);
      socket.end(
        encodeFrame({
          type: 'error',
          message: `too many connections (limit ${maxConnections})`,
          retryable: true,
        }),
        () => socket.destroy(),
      );
      return;
    }
    const connection = serveConnection(socket, {
      id: nextId++,
      handler: options.handler,
      allowedCapabilities: options.allowedCapabilities,
      serverVersion: options.serverVersion,
      maxFrameBytes: options.maxFrameBytes ?? MAX_FRAME_BYTES,
      frameTimeoutMs: options.frameTimeoutMs ?? 30_000,
      log,
    });
    open.set(socket, connection);
    socket.once('close', () => open.delete(socket));
  });

  await listenPrivately(server, path);
  const inode = statSync(path).ino;

  return {
    path,
    connectionCount: () => open.size,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const connection of open.values()) connection.abort();
      await closed;
      // Only our own socket: another server may have taken the path since.
      try {
        if (statSync(path).ino === inode) unlinkSync(path);
      } catch {
        // Already gone.
      }
    },
  };
}
