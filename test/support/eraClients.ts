/**
 * Raw MCP clients over HTTP, one per era, each on a TCP connection of its own as separate client
 * programs would be (fetch in one process pools its connections across every caller, which would
 * blur who is who on the server). Used by the fairness test and bench/fairness.ts.
 */
import { Agent, request } from 'node:http';

export const LEGACY_PROTOCOL = '2025-06-18';
export const MODERN_PROTOCOL = '2026-07-28';

export type EraName = 'legacy' | 'modern';

export interface EraClient {
  readonly era: EraName;
  /** One tools/call; resolves with its result, rejects on a transport error or a JSON-RPC error. */
  call(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): void;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One POST. A kept-alive connection the server closed as idle (Node's 5 s) while this request went
 * out fails with ECONNRESET on the reused socket: sent again once, as HTTP clients do.
 */
function post(
  url: URL,
  agent: Agent,
  headers: Record<string, string>,
  body: unknown,
  again = true,
): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (again && req.reusedSocket && error.code === 'ECONNRESET')
        resolve(post(url, agent, headers, body, false));
      else reject(error);
    });
    req.end(payload);
  });
}

/** The JSON-RPC message of a reply: the body, or the last `data:` line of an SSE stream. */
function messageOf(answer: Answer): { result?: Record<string, unknown>; error?: { message: string } } {
  const type = String(answer.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    const data = answer.text.split('\n').filter((line) => line.startsWith('data: '));
    return JSON.parse(data.at(-1)?.slice(6) ?? '{}');
  }
  return JSON.parse(answer.text);
}

function resultOf(answer: Answer, what: string): Record<string, unknown> {
  if (answer.status !== 200) throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  const message = messageOf(answer);
  if (message.error) throw new Error(`${what}: ${message.error.message}`);
  return message.result ?? {};
}

/** A 2025 client: initialize, then every call in its session. */
export async function openLegacyClient(
  endpoint: string,
  headers: Record<string, string> = {},
): Promise<EraClient> {
  const url = new URL(endpoint);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const init = await post(url, agent, headers, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: LEGACY_PROTOCOL,
      capabilities: {},
      clientInfo: { name: 'era-client', version: '0' },
    },
  });
  resultOf(init, 'initialize');
  const session = String(init.headers['mcp-session-id']);
  const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': LEGACY_PROTOCOL };
  await post(url, agent, sessionHeaders, { jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 1;
  return {
    era: 'legacy',
    call: async (name, args = {}) =>
      resultOf(
        await post(url, agent, sessionHeaders, {
          jsonrpc: '2.0',
          id: id++,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
        name,
      ),
    close: () => agent.destroy(),
  };
}

/** A 2026-07-28 client: no session; every request carries the envelope and the routing headers. */
export function openModernClient(endpoint: string, headers: Record<string, string> = {}): EraClient {
  const url = new URL(endpoint);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'era-client', version: '0' },
  };
  let id = 1;
  return {
    era: 'modern',
    call: async (name, args = {}) =>
      resultOf(
        await post(
          url,
          agent,
          {
            ...headers,
            'mcp-protocol-version': MODERN_PROTOCOL,
            'mcp-method': 'tools/call',
            'mcp-name': name,
          },
          { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args, _meta: meta } },
        ),
        name,
      ),
    close: () => agent.destroy(),
  };
}
