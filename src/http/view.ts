/**
 * The board in a browser (issue 25): `GET /` is the page, `GET /events` its live stream (SSE:
 * `board` with each look, `call` with each tool call's audit event). Both come after the same
 * Origin and Host gates and the same bearer gate as `/mcp`, and the stream needs
 * `jumperless.read`; the page holds no board data, only the code that reads the stream, so it
 * passes a browser's navigation without a header: a bearer goes in its URL's fragment (never sent
 * to a server), and the page sends it on the stream's request. Nothing here changes the board.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditEvent } from '../core/audit.js';
import { type BoardLook, type BoardView, viewPageDocument } from '../core/view.js';
import type { HttpCaller } from './bearer.js';
import { type Rejection, reject } from './rejection.js';

/** The paths the view answers, besides the MCP endpoint. */
export const VIEW_PATHS = new Set(['/', '/events']);

const KEEPALIVE_MS = 15_000;
/** What a page's stream may hold unsent before the page is taken as gone (see serveEvents). */
export const MAX_BEHIND_BYTES = 1024 * 1024;

/**
 * An event as the stream sends it, made once for every page: the view hands the same look (9 KB of
 * JSON with its picture) and the same call event to each, and serialising it once per page cost
 * 10 times the work with 10 pages open.
 */
const framings = new WeakMap<object, string>();
function framed(event: 'board' | 'call', data: BoardLook | AuditEvent): string {
  let text = framings.get(data);
  if (text === undefined) {
    text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    framings.set(data, text);
  }
  return text;
}

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
  // A page that reads slower than the board changes (a stalled tab, a slow link) must not make the
  // server buffer without bound: once the stream's buffer is full, the page gets no look until it
  // drains, then the latest one (a look is the whole board, so the ones between lose nothing). Call
  // events are small and each is a line of the log, so they are kept; a page so far behind that
  // even they fill MAX_BEHIND_BYTES is not reading: its stream ends, and the browser's EventSource
  // comes back to the latest look.
  let full = false;
  let held: BoardLook | undefined;
  let unwatch = () => {};
  const write = (text: string) => {
    if (res.writableEnded || res.destroyed) return;
    if (res.writableLength > MAX_BEHIND_BYTES) {
      unwatch();
      res.destroy();
      return;
    }
    if (!res.write(text)) full = true;
  };
  res.on('drain', () => {
    full = false;
    const look = held;
    held = undefined;
    if (look) write(framed('board', look));
  });
  unwatch = view.watch({
    look: (look) => {
      if (full) held = look;
      else write(framed('board', look));
    },
    call: (event) => write(framed('call', event)),
  });
  const keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  const stop = () => {
    clearInterval(keepalive);
    unwatch();
  };
  req.once('close', stop);
  res.once('close', stop);
  return undefined;
}
