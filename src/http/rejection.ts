/**
 * An HTTP refusal with a JSON-RPC error body and no `id` (MCP 2025-11-25 transports: "the body
 * may be a JSON-RPC error with no id"), never an HTML page.
 */
import type { ServerResponse } from 'node:http';

export interface Rejection {
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}

export function reject(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Rejection {
  return { status, code, message, ...(headers ? { headers } : {}) };
}

export function sendRejection(res: ServerResponse, rejection: Rejection): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: rejection.code, message: rejection.message },
  });
  res.writeHead(rejection.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...rejection.headers,
  });
  res.end(body);
}
