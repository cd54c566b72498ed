/** Raw HTTP helpers for the MCP endpoint: replies as status, headers and the JSON-RPC message. */

export const PROTOCOL = '2025-06-18';

export const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, or the last `data:` message of an SSE body. */
  body: { jsonrpc?: string; id?: number; result?: Record<string, unknown>; error?: RpcErrorBody } | undefined;
}

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export async function send(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Reply> {
  const res = await fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: parseReply(text, res.headers) };
}

function parseReply(text: string, headers: Headers): Reply['body'] {
  if (text === '') return undefined;
  if (headers.get('content-type')?.includes('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    return data.at(-1);
  }
  return JSON.parse(text);
}

export interface RawSession {
  id: string;
  headers: Record<string, string>;
  /** One JSON-RPC request on this session; `headers` replace the session's (another bearer, say). */
  call(method: string, params?: unknown, headers?: Record<string, string>): Promise<Reply>;
  tool(name: string, args?: unknown, headers?: Record<string, string>): Promise<Reply>;
}

/** initialize + notifications/initialized, with the given headers on every request. */
export async function openSession(url: string, headers: Record<string, string> = {}): Promise<RawSession> {
  const init = await send(url, INIT, headers);
  if (init.status !== 200) throw new Error(`initialize: ${init.status} ${init.text}`);
  const id = init.headers.get('mcp-session-id') as string;
  const sessionHeaders = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL };
  await send(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders);
  let next = 2;
  const call = (method: string, params?: unknown, extra?: Record<string, string>) =>
    send(
      url,
      { jsonrpc: '2.0', id: next++, method, ...(params === undefined ? {} : { params }) },
      extra ? { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL, ...extra } : sessionHeaders,
    );
  return {
    id,
    headers: sessionHeaders,
    call,
    tool: (name, args = {}, extra) => call('tools/call', { name, arguments: args }, extra),
  };
}
