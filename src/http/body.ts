/**
 * The POST body: JSON content type (415), a size cap (413), then JSON (400 / -32700), each a
 * JSON-RPC error rather than a framework's HTML page (mcp notes §2.6).
 */
import type { IncomingMessage } from 'node:http';
import { type Rejection, reject } from './rejection.js';

/** Default cap on a request body: 4 MiB, as the SDK transport. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

export function checkContentType(contentType: string | undefined): Rejection | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return undefined;
  return reject(415, -32600, 'Unsupported Media Type: send Content-Type: application/json');
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; rejection: Rejection };

/** Reads and parses the body, stopping as soon as it passes the limit. */
export function readJsonBody(req: IncomingMessage, limit = DEFAULT_BODY_LIMIT): Promise<BodyResult> {
  const tooLarge = (): BodyResult => ({
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
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () =>
      finish({ ok: false, rejection: reject(400, -32600, 'Bad Request: the body was cut off') }),
    );
    req.on('end', () => finish(parseJson(Buffer.concat(chunks).toString('utf8'))));
  });
}

export function parseJson(text: string): BodyResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, rejection: reject(400, -32700, 'Parse error: the body is not valid JSON') };
  }
}
