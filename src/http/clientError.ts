/**
 * Requests node:http refuses before our handler sees them (malformed request line or headers,
 * headers too large, a request that outlived the server's timeouts) get a JSON-RPC error body
 * too, instead of Node's bare status line: every error a client can meet is JSON.
 */
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

const STATUS_BY_CODE: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * `inFlight` is the response being written on this socket, if any: once its headers are out,
 * bytes of our own would corrupt it, so the socket is only closed (as Node itself does).
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  inFlight: ServerResponse | undefined,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const status = STATUS_BY_CODE[error.code ?? ''] ?? 400;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: -32600, message: `${STATUS_CODES[status]}: the HTTP request was malformed or incomplete` },
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  // Written, then gone: a peer that never reads or closes must not keep the socket.
  socket.once('finish', () => socket.destroy());
}
