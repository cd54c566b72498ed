/**
 * The HTTP error table (README "Errors", DESIGN.md §4), one row at a time, in both eras: each row
 * is sent as a 2025 client sends it (in a session) and as a 2026-07-28 client does (stateless,
 * the `_meta` envelope and the Mcp-Method / Mcp-Name / MCP-Protocol-Version headers). Real HTTP on
 * port 0, the real virtual board, the real gates; every refusal is JSON.
 */
import { connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerLookupError, mintToken } from '../../src/auth/index.js';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { createDispatcher } from '../../src/core/dispatcher.js';
import { ToolSubsystem } from '../../src/core/toolSubsystem.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { httpCaller } from '../../src/http/caller.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { MemoryTokenBroker } from '../support/memoryBroker.js';
import { slowReadTool } from '../support/slowTool.js';
import { bearer, openSession, type Reply, send } from './httpReplies.js';
import { MODERN } from './serverFixture.js';

type Era = 'legacy' | 'modern';
const ERAS: readonly Era[] = ['legacy', 'modern'];

const HOUR = 3_600_000;
const broker = new MemoryTokenBroker();
const READER = mintToken();
const EXPIRED = mintToken();
const REVOKED = mintToken();
/** A store that is briefly unreadable, on a server of its own. */
const flaky = new MemoryTokenBroker();
const FLAKY = mintToken();

let app: App;
const servers: RunningHttpServer[] = [];
/** Bearers optional, 64 KiB bodies, bodies due within 300 ms. */
let open: RunningHttpServer;
/** Bearers required. */
let strict: RunningHttpServer;
let down: RunningHttpServer;
/** One tool that lets one call in at a time and waits for `release`. */
let slow: RunningHttpServer;
let release: () => void = () => {};
const dispatcher = createDispatcher({
  root: new ToolSubsystem({
    name: 'local',
    tools: [
      slowReadTool(
        () =>
          new Promise<void>((done) => {
            release = done;
          }),
      ),
    ],
  }),
});

async function serve(options: Partial<Parameters<typeof startHttpServer>[0]>): Promise<RunningHttpServer> {
  const server = await startHttpServer({
    port: 0,
    bodyLimit: 64 * 1024,
    bodyTimeoutMs: 300,
    log: () => {},
    dispatcher: app.dispatcher,
    createServer: (_, era) => app.createServer(httpCaller, { era, perRequest: era === 'modern' }),
    ...options,
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim' });
  broker.add(READER, { callerId: 'token:reader', capabilities: ['jumperless.read'] });
  broker.add(EXPIRED, {
    callerId: 'token:expired',
    capabilities: ['jumperless.read'],
    expiresAt: new Date(Date.now() - HOUR),
  });
  broker.add(REVOKED, { callerId: 'token:revoked', capabilities: ['jumperless.read'] });
  broker.revoke(REVOKED, 'left the lab');
  flaky.add(FLAKY, { callerId: 'token:flaky', capabilities: ['jumperless.read'] });
  open = await serve({ auth: { broker } });
  strict = await serve({ auth: { broker, requireBearer: true } });
  down = await serve({ auth: { broker: flaky } });
  slow = await serve({
    auth: { broker },
    createServer: (_, era) =>
      createMcpServer({
        dispatcher,
        era,
        caller: httpCaller,
        perRequest: era === 'modern',
      }),
  });
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await app?.close();
});

/** Headers with '' are left out (a request without Authorization after a session opened with one). */
const present = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== ''));

/** One JSON-RPC request in an era: `headers` are sent on it (not on the session's initialize). */
async function call(
  era: Era,
  server: RunningHttpServer,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  session: Record<string, string> = {},
): Promise<Reply> {
  if (era === 'legacy') {
    const opened = await openSession(server.url, session);
    return opened.call(method, params, present({ ...opened.headers, ...headers }));
  }
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return send(
    server.url,
    { jsonrpc: '2.0', id: 9, method, params: { ...params, _meta: meta } },
    present({ 'mcp-protocol-version': MODERN, 'mcp-method': method, ...name, ...session, ...headers }),
  );
}

interface Row {
  row: string;
  send(era: Era): Promise<Reply>;
  status: number | Record<Era, number>;
  code: number;
  dataCode?: number;
  headers?: Record<string, RegExp>;
}

const tool = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });

const ROWS: Row[] = [
  {
    row: 'a foreign Origin',
    send: (era) => call(era, open, 'tools/call', tool('power_get'), { origin: 'http://evil.example' }),
    status: 403,
    code: -32001,
  },
  {
    row: 'no bearer where one is required',
    send: (era) => call(era, strict, 'tools/call', tool('power_get'), { authorization: '' }, bearer(READER)),
    status: 401,
    code: -32002,
    headers: { 'www-authenticate': /^Bearer$/ },
  },
  {
    row: 'an unknown bearer',
    send: (era) => call(era, open, 'tools/call', tool('power_get'), bearer(mintToken())),
    status: 401,
    code: -32002,
    headers: { 'www-authenticate': /error="invalid_token", error_description="unknown"/ },
  },
  {
    row: 'an expired bearer',
    send: (era) => call(era, open, 'tools/call', tool('power_get'), bearer(EXPIRED)),
    status: 401,
    code: -32002,
    headers: { 'www-authenticate': /error_description="expired"/ },
  },
  {
    row: 'a revoked bearer',
    send: (era) => call(era, open, 'tools/call', tool('power_get'), bearer(REVOKED)),
    status: 401,
    code: -32002,
    headers: { 'www-authenticate': /error_description="revoked"/ },
  },
  {
    row: 'an empty bearer',
    send: (era) => call(era, open, 'tools/call', tool('power_get'), { authorization: 'Bearer ' }),
    status: 400,
    code: -32002,
    headers: { 'www-authenticate': /error="invalid_request"/ },
  },
  {
    row: 'the token store briefly down',
    send: async (era) => {
      const session = era === 'legacy' ? await openSession(down.url, bearer(FLAKY)) : undefined;
      flaky.failWith(new BrokerLookupError('disk gone'));
      try {
        if (session) return await session.tool('power_get');
        return await call(era, down, 'tools/call', tool('power_get'), bearer(FLAKY));
      } finally {
        flaky.failWith(undefined);
      }
    },
    status: 503,
    code: -32002,
    headers: { 'retry-after': /^5$/ },
  },
  {
    row: 'an unknown method (2026-07-28: 404, the method is in a header)',
    send: (era) => call(era, open, 'no/such', {}),
    status: { legacy: 200, modern: 404 },
    code: -32601,
  },
  {
    row: 'an unknown tool',
    send: (era) => call(era, open, 'tools/call', tool('no_such_tool')),
    status: 200,
    code: -32602,
  },
  {
    row: 'invalid arguments',
    send: (era) => call(era, open, 'tools/call', tool('dac_set', { channel: 'DAC1', volts: 99 })),
    status: 200,
    code: -32602,
  },
  {
    row: 'a capability denied (anonymous python_exec)',
    send: (era) => call(era, open, 'tools/call', tool('python_exec', { code: 'print(1)' })),
    status: 200,
    code: -32603,
    dataCode: 1001,
  },
  {
    row: 'a tool at its concurrency limit',
    send: async (era) => {
      const first = call(era, slow, 'tools/call', tool('slow_read'), bearer(READER), bearer(READER));
      await expect.poll(() => dispatcher.registry.get('slow_read')?.running).toBe(1);
      const second = await call(era, slow, 'tools/call', tool('slow_read'), bearer(READER), bearer(READER));
      release();
      expect((await first).body?.result?.structuredContent).toEqual({ done: true });
      return second;
    },
    status: 200,
    code: -32603,
    dataCode: 1002,
  },
  {
    row: 'a body over the limit',
    send: (era) => call(era, open, 'tools/call', { ...tool('power_get'), pad: 'x'.repeat(70 * 1024) }),
    status: 413,
    code: -32600,
  },
  {
    row: 'a body that is not JSON by its type',
    send: (era) => call(era, open, 'tools/call', tool('power_get'), { 'content-type': 'text/plain' }),
    status: 415,
    code: -32600,
  },
  {
    row: 'a body that does not arrive in time',
    send: (era) => stalled(open, era),
    status: 408,
    code: -32600,
  },
  {
    row: 'a request without a Host header',
    send: (era) => hostless(open, era),
    status: 400,
    code: -32600,
  },
];

/** Declares a body it never finishes sending. */
async function stalled(server: RunningHttpServer, era: Era): Promise<Reply> {
  const headers =
    era === 'legacy'
      ? (await openSession(server.url)).headers
      : { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'power_get' };
  return raw(server, (host) =>
    [
      'POST /mcp HTTP/1.1',
      `host: ${host}`,
      'content-type: application/json',
      'accept: application/json, text/event-stream',
      'content-length: 500',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      '',
      '{"jsonrpc":"2.0",',
    ].join('\r\n'),
  );
}

/** HTTP/1.1 without Host: refused in JSON by us, not with Node's empty 400. */
async function hostless(server: RunningHttpServer, era: Era): Promise<Reply> {
  const body = JSON.stringify(
    era === 'legacy'
      ? { jsonrpc: '2.0', id: 1, method: 'tools/list' }
      : {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
        },
  );
  return raw(
    server,
    () =>
      `POST /mcp HTTP/1.1\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Writes a raw request and reads the one reply (status, headers, JSON body). */
function raw(server: RunningHttpServer, request: (host: string) => string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(server.port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Headers(
        lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        text: body,
        body: body === '' ? undefined : JSON.parse(body),
      });
    });
    socket.write(request(`127.0.0.1:${server.port}`));
  });
}

describe.each(ERAS)('the HTTP error table, %s era', (era) => {
  it.each(ROWS)('$row', async (row) => {
    const reply = await row.send(era);
    const status = typeof row.status === 'number' ? row.status : row.status[era];
    expect(reply.status).toBe(status);
    // A 2025 session answers its requests on an SSE stream (the SDK's transport); every refusal is JSON.
    const streamed = era === 'legacy' && status === 200;
    expect(reply.headers.get('content-type')).toMatch(
      streamed ? /^text\/event-stream/ : /^application\/json/,
    );
    expect(reply.body?.error?.code).toBe(row.code);
    if (row.dataCode !== undefined) expect(reply.body?.error?.data).toMatchObject({ code: row.dataCode });
    for (const [name, pattern] of Object.entries(row.headers ?? {})) {
      expect(reply.headers.get(name)).toMatch(pattern);
    }
    expect(reply.text).not.toMatch(/\n\s+at |\.ts:\d+/);
  });
});
