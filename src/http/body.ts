/**
 * The POST body: JSON content type (415), a size cap (413), a deadline (408), then JSON
 * (400 / -32700), each a JSON-RPC error rather than a framework's HTML page (mcp notes §2.6).
 * Reading and parsing are separate steps because the bearer gate sits between them (DESIGN.md
 * §4 gate order: size and type -> bearer -> JSON parse).
 */
import type { IncomingMessage } from 'node:http';
import { type Rejection, reject } from './rejection.js';

/** Default cap on a request body: 4 MiB, as the SDK transport. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
/** Default time for a whole body to arrive: a trickling client must not hold a request forever. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export function checkContentType(contentType: string | undefined): Rejection | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return undefined;
  return reject(415, -32600, 'Unsupported Media Type: send Content-Type: application/json');
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; rejection: Rejection };
export type RawBodyResult = { ok: true; bytes: Buffer } | { ok: false; rejection: Rejection };

export interface ReadBodyOptions {
  /** Bytes. Default DEFAULT_BODY_LIMIT. */
  limit?: number;
  /** The whole body must arrive within this. Default DEFAULT_BODY_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Reads the body, stopping as soon as it passes the limit or the deadline. A refused body is
 * not drained: the rejection asks for the connection to close instead.
 */
export function readBody(req: IncomingMessage, options: ReadBodyOptions = {}): Promise<RawBodyResult> {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  const timeoutMs = options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const tooLarge = (): RawBodyResult => ({
    ok: false,
    rejection: reject(413, -32600, `Payload Too Large: the limit is ${limit} bytes`, { connection: 'close' }),
  });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve(tooLarge());
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: RawBodyResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      resolve(result);
    };
    const timer = setTimeout(() => {
      req.pause();
      finish({
        ok: false,
        rejection: reject(408, -32600, `Request Timeout: the body did not arrive within ${timeoutMs} ms`, {
          connection: 'close',
        }),
      });
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        chunks.length = 0;
        finish(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    const cutOff = () => {
      if (done) return; // 'close' follows every read body
      finish({
        ok: false,
        rejection: reject(400, -32600, 'Bad Request: the body was cut off', { connection: 'close' }),
      });
    };
    req.on('error', cutOff);
    req.on('end', () => finish({ ok: true, bytes: Buffer.concat(chunks) }));
    // A peer that hangs up mid-body: 'close' without 'end' (answered into the void, but settled).
    req.on('close', cutOff);
  });
}

/** Reads and parses in one step, for callers without a gate in between. */
export async function readJsonBody(
  req: IncomingMessage,
  limit = DEFAULT_BODY_LIMIT,
  timeoutMs = DEFAULT_BODY_TIMEOUT_MS,
): Promise<BodyResult> {
  const read = await readBody(req, { limit, timeoutMs });
  return read.ok ? parseJson(read.bytes.toString('utf8')) : read;
}

export function parseJson(text: string): BodyResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, rejection: reject(400, -32700, 'Parse error: the body is not valid JSON') };
  }
}
