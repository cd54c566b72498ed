/**
 * The board in a browser (issue 25): `GET /` is the page, `GET /events` its live stream (SSE:
 * `board` with each look, `call` with each tool call's audit event). Both come after the same
 * Origin and Host gates and the same bearer gate as `/mcp`, and the stream needs
 * `jumperless.read`; the page holds no board data, only the code that reads the stream, so it
 * passes a browser's navigation without a header: a bearer goes in its URL's fragment (never sent
 * to a server), and the page sends it on the stream's request. Nothing here changes the board.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BoardView, viewPageDocument } from '../core/view.js';
import type { HttpCaller } from './bearer.js';
import { type Rejection, reject } from './rejection.js';

/** The paths the view answers, besides the MCP endpoint. */
export const VIEW_PATHS = new Set(['/', '/events']);

const KEEPALIVE_MS = 15_000;

/** The page: code only, no board data (that comes on `/events`, behind the bearer gate). */
export function servePage(res: ServerResponse): void {
  const page = viewPageDocument();
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(page),
    // The page may load nothing from elsewhere and talk only to this server.
    'content-security-policy':
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
  res.end(page);
}

/** Streams the looks and the calls until the client goes; undefined when served, else the refusal. */
export function serveEvents(
  req: IncomingMessage,
  res: ServerResponse,
  caller: HttpCaller,
  view: BoardView,
): Rejection | undefined {
  if (!caller.capabilities.includes('jumperless.read'))
    return reject(403, -32001, 'Forbidden: watching the board needs jumperless.read');
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  const send = (event: string, data: unknown) => {
    if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const unwatch = view.watch({ look: (look) => send('board', look), call: (event) => send('call', event) });
  const keepalive = setInterval(() => {
    if (!res.writableEnded) res.write(': keepalive\n\n');
  }, KEEPALIVE_MS);
  keepalive.unref();
  const stop = () => {
    clearInterval(keepalive);
    unwatch();
  };
  req.once('close', stop);
  res.once('close', stop);
  return undefined;
}
