/**
 * The HTTP error table, row by row (DESIGN.md §4 gate order, dispatch notes §3.1): status,
 * JSON-RPC code, `data.code` and headers; the Origin cases; a token's life (valid, revoked,
 * expired, store down, store back) on requests and on an open SSE stream; capabilities (the
 * anonymous set, a bearer's set within the operator allow-list); a hidden tool. Real HTTP on
 * port 0, the real virtual board, the real token store where it matters.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BrokerInternalError,
  BrokerLookupError,
  BrokerNotConfiguredError,
  FileTokenStore,
  mintToken,
} from '../../src/auth/index.js';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { ANONYMOUS_CAPABILITIES, CAPABILITIES } from '../../src/core/capabilities.js';
import { createDispatcher } from '../../src/core/dispatcher.js';
import { ToolSubsystem } from '../../src/core/toolSubsystem.js';
import { type HttpAuthOptions, type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { httpCaller } from '../../src/http/caller.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { conformanceExtras } from '../fixtures/conformance/fixtures.js';
import { MemoryTokenBroker } from '../support/memoryBroker.js';
import { slowReadTool } from '../support/slowTool.js';
import { bearer, INIT, openSession, type Reply, send } from './httpReplies.js';

const HOUR = 3_600_000;
/** The broker's clock: tests move it to expire tokens without waiting. */
let clockOffset = 0;
const broker = new MemoryTokenBroker({ now: () => Date.now() + clockOffset });
const READER = mintToken();
const EXEC = mintToken();
const EXPIRING = mintToken();
const REVOCABLE = mintToken();
const UNKNOWN = mintToken();

let app: App;
const servers: RunningHttpServer[] = [];
/** Bearers optional; allow-list everything; SSE streams re-checked every 100 ms. */
let open: RunningHttpServer;
/** Bearers required; the allow-list lacks exec. */
let strict: RunningHttpServer;
/** No token broker at all. */
let bare: RunningHttpServer;

async function serve(auth: HttpAuthOptions | undefined, extra: { origins?: string[] } = {}) {
  const server = await startHttpServer({
    port: 0,
    ...extra,
    ...(auth ? { auth } : {}),
    bodyLimit: 64 * 1024,
    log: () => {},
    createServer: (_, era) => app.createServer(httpCaller, { era, perRequest: era === 'modern' }),
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim' }, { extras: conformanceExtras });
  broker.add(READER, { callerId: 'token:reader', capabilities: ['jumperless.read'] });
  broker.add(EXEC, { callerId: 'token:exec', capabilities: ['jumperless.read', 'jumperless.exec'] });
  broker.add(EXPIRING, {
    callerId: 'token:expiring',
    capabilities: ['jumperless.read'],
    expiresAt: new Date(Date.now() + HOUR),
  });
  broker.add(REVOCABLE, { callerId: 'token:revocable', capabilities: ['jumperless.read'] });
  open = await serve({ broker, recheckMs: 100 }, { origins: ['https://lab.example'] });
  strict = await serve({
    broker,
    requireBearer: true,
    allowList: CAPABILITIES.filter((c) => c !== 'jumperless.exec'),
  });
  bare = await serve(undefined);
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await app?.close();
});

/** A refusal before the MCP transport: a JSON-RPC error without id, in JSON, no stack trace. */
function expectRefusal(reply: Reply, status: number, code: number, headers: Record<string, string> = {}) {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.body).toEqual({ jsonrpc: '2.0', error: { code, message: expect.any(String) } });
  for (const [name, value] of Object.entries(headers)) expect(reply.headers.get(name)).toBe(value);
  expect(reply.text).not.toMatch(/\n\s+at |\.ts:\d+/);
}

describe('the gates, in order', () => {
  it('403 / -32001: a foreign Origin, even with a valid bearer (the broker is not asked)', async () => {
    const before = broker.calls;
    expectRefusal(
      await send(open.url, INIT, { origin: 'http://evil.example', ...bearer(READER) }),
      403,
      -32001,
    );
    expect(broker.calls).toBe(before);
  });

  it('Origin: none, loopback, tauri and configured origins pass; look-alikes and prefixes do not', async () => {
    for (const origin of [undefined, 'http://localhost:5173', 'http://127.0.0.1:8080', 'tauri://localhost']) {
      const reply = await send(open.url, INIT, origin ? { origin } : {});
      expect(reply.status, origin).toBe(200);
    }
    expect((await send(open.url, INIT, { origin: 'https://lab.example' })).status).toBe(200);
    for (const origin of [
      'https://lab.example.evil',
      'https://lab.exampl',
      'http://localhost.evil.example',
    ]) {
      expectRefusal(await send(open.url, INIT, { origin }), 403, -32001);
    }
  });

  it('413 / -32600: a body over the limit, before the bearer is looked at', async () => {
    const before = broker.calls;
    const big = JSON.stringify({ ...INIT, pad: 'x'.repeat(70 * 1024) });
    expectRefusal(await send(open.url, big, bearer(UNKNOWN)), 413, -32600);
    expect(broker.calls).toBe(before);
  });

  it('415 / -32600: not JSON, before the bearer is looked at', async () => {
    const before = broker.calls;
    expectRefusal(
      await send(open.url, INIT, { 'content-type': 'text/plain', ...bearer(UNKNOWN) }),
      415,
      -32600,
    );
    expect(broker.calls).toBe(before);
  });

  it('401 / -32002 with WWW-Authenticate: Bearer: no bearer where one is required', async () => {
    expectRefusal(await send(strict.url, INIT), 401, -32002, { 'www-authenticate': 'Bearer' });
  });

  it('400 / -32002: an empty bearer, without asking the broker', async () => {
    const before = broker.calls;
    for (const header of ['Bearer ', 'Bearer', 'bearer    ']) {
      expectRefusal(await send(open.url, INIT, { authorization: header }), 400, -32002);
    }
    expect(broker.calls).toBe(before);
  });

  it('400 / -32002: an Authorization scheme other than Bearer', async () => {
    expectRefusal(await send(open.url, INIT, { authorization: 'Basic dXNlcjpwYXNz' }), 400, -32002);
  });

  it('501 / -32002: a bearer sent to a server without a token broker', async () => {
    expectRefusal(await send(bare.url, INIT, bearer(READER)), 501, -32002);
    expect((await send(bare.url, INIT)).status).toBe(200);
  });

  it('401 / -32002: an unknown bearer, even where none is required', async () => {
    expectRefusal(await send(open.url, INIT, bearer(UNKNOWN)), 401, -32002, {
      'www-authenticate': 'Bearer error="invalid_token", error_description="unknown"',
    });
    expectRefusal(await send(open.url, INIT, bearer('not-even-a-token')), 401, -32002);
  });

  it('401 / -32002: an expired bearer, with its own description', async () => {
    const token = mintToken();
    broker.add(token, { callerId: 'token:old', capabilities: [], expiresAt: new Date(Date.now() - 1000) });
    const reply = await send(open.url, INIT, bearer(token));
    expectRefusal(reply, 401, -32002, {
      'www-authenticate': 'Bearer error="invalid_token", error_description="expired"',
    });
    expect(reply.body?.error?.message).toMatch(/expired/);
  });

  it('401 / -32002: a revoked bearer, with its own description and the reason in the message', async () => {
    const token = mintToken();
    broker.add(token, { callerId: 'token:lost', capabilities: ['jumperless.read'] });
    broker.revoke(token, 'laptop stolen');
    const reply = await send(open.url, INIT, bearer(token));
    expectRefusal(reply, 401, -32002, {
      'www-authenticate': 'Bearer error="invalid_token", error_description="revoked"',
    });
    expect(reply.body?.error?.message).toMatch(/revoked \(reason: laptop stolen\)/);
  });

  it('503 / -32002 with Retry-After: the token store cannot be read; the path stays private', async () => {
    broker.failWith(new BrokerLookupError('token store /home/op/.config/tokens.json is damaged'));
    try {
      const reply = await send(open.url, INIT, bearer(READER));
      expectRefusal(reply, 503, -32002, { 'retry-after': '5' });
      expect(reply.text).not.toMatch(/home|damaged/);
      // No bearer, no broker: anonymous callers are not held up by a broken store.
      expect((await send(open.url, INIT)).status).toBe(200);
    } finally {
      broker.failWith(undefined);
    }
  });

  it('501 / -32002: a broker that does not take bearers', async () => {
    broker.failWith(new BrokerNotConfiguredError('no bearers here'));
    try {
      expectRefusal(await send(open.url, INIT, bearer(READER)), 501, -32002);
    } finally {
      broker.failWith(undefined);
    }
  });

  it('500 / -32002: a broker bug, with a generic message', async () => {
    for (const error of [new BrokerInternalError('secret detail'), new TypeError('secret detail')]) {
      broker.failWith(error);
      try {
        const reply = await send(open.url, INIT, bearer(READER));
        expectRefusal(reply, 500, -32002);
        expect(reply.text).not.toMatch(/secret/);
      } finally {
        broker.failWith(undefined);
      }
    }
  });

  it('400 / -32700: bad JSON, after the bearer (a bad bearer with bad JSON is a 401)', async () => {
    expectRefusal(await send(open.url, '{"jsonrpc": nope', bearer(READER)), 400, -32700);
    expectRefusal(await send(open.url, '{"jsonrpc": nope', bearer(UNKNOWN)), 401, -32002);
  });

  it('every method passes the bearer gate: GET and DELETE too', async () => {
    const session = await openSession(open.url, bearer(READER));
    const get = await send(open.url, undefined, { ...session.headers, ...bearer(UNKNOWN) }, 'GET');
    expectRefusal(get, 401, -32002);
    const del = await send(open.url, undefined, { ...session.headers, ...bearer(UNKNOWN) }, 'DELETE');
    expectRefusal(del, 401, -32002);
    expect((await send(open.url, undefined, session.headers, 'DELETE')).status).toBe(200);
  });
});

describe('past the gates (HTTP 200)', () => {
  it('initialize advertises the accepted token formats under capabilities.experimental', async () => {
    const reply = await send(open.url, INIT);
    expect(reply.body?.result?.capabilities).toMatchObject({
      experimental: { jumperless: { acceptedTokenFormats: ['opaque'] } },
    });
    const none = await send(bare.url, INIT);
    expect(none.body?.result?.capabilities).not.toHaveProperty('experimental');
  });

  it('-32601: an unknown method', async () => {
    const session = await openSession(open.url);
    const reply = await session.call('no/such_method', {});
    expect(reply.status).toBe(200);
    expect(reply.body?.error?.code).toBe(-32601);
  });

  it('-32602: an unknown tool, and invalid arguments', async () => {
    const session = await openSession(open.url);
    expect((await session.tool('no_such_tool')).body?.error?.code).toBe(-32602);
    const invalid = await session.tool('dac_set', { channel: 'TOP_RAIL', volts: 'lots' });
    expect(invalid.status).toBe(200);
    expect(invalid.body?.error?.code).toBe(-32602);
  });

  it('-32603 data 1001: anonymous callers are denied exec, with required, granted and missing', async () => {
    const session = await openSession(open.url);
    const reply = await session.tool('python_exec', { code: 'print(1)' });
    expect(reply.status).toBe(200);
    expect(reply.body?.error).toMatchObject({
      code: -32603,
      data: {
        code: 1001,
        retryable: false,
        required: ['jumperless.exec'],
        granted: [...ANONYMOUS_CAPABILITIES],
        missing: ['jumperless.exec'],
      },
    });
  });

  it('-32603 data 1002 (retryable): a tool at its concurrency limit', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((done) => {
      release = done;
    });
    const slow = slowReadTool(() => gate);
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: [slow] }) });
    const server = await startHttpServer({
      port: 0,
      auth: { broker },
      createServer: (_, era) =>
        createMcpServer({
          dispatcher,
          era,
          caller: httpCaller,
          perRequest: era === 'modern',
        }),
    });
    servers.push(server);
    const session = await openSession(server.url, bearer(READER));
    const first = session.tool('slow_read');
    await expect.poll(() => dispatcher.registry.get('slow_read')?.running).toBe(1);
    const second = await session.tool('slow_read');
    expect(second.status).toBe(200);
    expect(second.body?.error).toMatchObject({ code: -32603, data: { code: 1002, retryable: true } });
    release();
    expect((await first).body?.result?.structuredContent).toEqual({ done: true });
  });

  it('a tool that ran and failed is a result with isError, not an HTTP error', async () => {
    const session = await openSession(open.url);
    const reply = await session.tool('test_error_handling');
    expect(reply.status).toBe(200);
    expect(reply.body?.result).toMatchObject({ isError: true });
  });
});

describe('capabilities per request', () => {
  it('a bearer with exec runs the hidden python_exec when the allow-list has exec', async () => {
    const session = await openSession(open.url, bearer(EXEC));
    const reply = await session.tool('python_exec', { code: 'print(6 * 7)' });
    expect(reply.body?.error).toBeUndefined();
    expect(JSON.stringify(reply.body?.result?.structuredContent)).toMatch(/42/);
  });

  it('the same bearer is refused exec where the allow-list lacks it', async () => {
    const session = await openSession(strict.url, bearer(EXEC));
    const reply = await session.tool('python_exec', { code: 'print(1)' });
    expect(reply.body?.error).toMatchObject({
      code: -32603,
      data: { code: 1001, granted: ['jumperless.read'], missing: ['jumperless.exec'] },
    });
  });

  it('a bearer gets its own set only: a read token cannot wire, however the session began', async () => {
    const session = await openSession(open.url, bearer(EXEC));
    const reply = await session.tool('dac_set', { channel: 'DAC1', volts: 1 }, bearer(READER));
    expect(reply.body?.error).toMatchObject({
      code: -32603,
      data: { code: 1001, granted: ['jumperless.read'], missing: ['jumperless.power'] },
    });
    // The session's first bearer grants nothing to a later anonymous request either.
    const anonymous = await session.tool('python_exec', { code: 'print(1)' }, {});
    expect(anonymous.body?.error?.data).toMatchObject({ code: 1001 });
  });

  it('the configured anonymous set applies to callers without a bearer', async () => {
    const readOnly = await serve({ broker, anonymous: ['jumperless.read'] });
    const session = await openSession(readOnly.url);
    expect((await session.tool('test_simple_text')).body?.result).toBeDefined();
    const reply = await session.tool('dac_set', { channel: 'DAC1', volts: 1 });
    expect(reply.body?.error?.data).toMatchObject({ code: 1001, granted: ['jumperless.read'] });
  });

  it('lists python_exec to a bearer holding exec, and to no anonymous caller', async () => {
    const session = await openSession(open.url, bearer(EXEC));
    const list = await session.call('tools/list', {});
    const names = ((list.body?.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
    // This token holds jumperless.read and jumperless.exec: the read tools and python_exec, no setter.
    expect(names).toContain('state_get');
    expect(names).not.toContain('dac_set');
    expect(names).toContain('python_exec');
    const reply = await session.tool('python_exec', { code: 'print("listed")' });
    expect(JSON.stringify(reply.body?.result?.structuredContent)).toMatch(/listed/);
    const anonymous = await openSession(open.url);
    const listed = await anonymous.call('tools/list', {});
    const anonymousNames = ((listed.body?.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
    expect(anonymousNames).toContain('state_get');
    expect(anonymousNames).not.toContain('python_exec');
  });
});

describe("a token's life", () => {
  it('valid, then revoked: the next request is refused with the reason', async () => {
    const session = await openSession(open.url, bearer(REVOCABLE));
    expect((await session.tool('test_simple_text')).body?.result).toBeDefined();
    broker.revoke(REVOCABLE, 'rotated');
    const reply = await session.call('tools/list', {});
    expectRefusal(reply, 401, -32002);
    expect(reply.body?.error?.message).toMatch(/rotated/);
  });

  it('valid, then expired', async () => {
    const session = await openSession(open.url, bearer(EXPIRING));
    expect((await session.tool('test_simple_text')).body?.result).toBeDefined();
    clockOffset = 2 * HOUR;
    try {
      expectRefusal(await session.call('tools/list', {}), 401, -32002, {
        'www-authenticate': 'Bearer error="invalid_token", error_description="expired"',
      });
    } finally {
      clockOffset = 0;
    }
  });

  it('store down (503), then back: the same token works again', async () => {
    const session = await openSession(open.url, bearer(READER));
    broker.failWith(new BrokerLookupError('disk gone'));
    expectRefusal(await session.tool('test_simple_text'), 503, -32002, { 'retry-after': '5' });
    broker.failWith(undefined);
    expect((await session.tool('test_simple_text')).body?.result).toBeDefined();
  });

  it('with the file store: a revoke by another process is seen on the next request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jlmcp-auth-'));
    try {
      const path = join(dir, 'tokens.json');
      const operator = new FileTokenStore(path);
      const { token, summary } = await operator.create({ capabilities: ['jumperless.read'] });
      const server = await serve({ broker: new FileTokenStore(path) });
      const session = await openSession(server.url, bearer(token));
      expect((await session.tool('test_simple_text')).body?.result).toBeDefined();
      await operator.revoke(summary.id, 'left the lab');
      const reply = await session.tool('test_simple_text');
      expectRefusal(reply, 401, -32002);
      expect(reply.body?.error?.message).toMatch(/left the lab/);
      expect(reply.text).not.toContain(token);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Reads an SSE body until it ends; returns every event name and data. */
async function readStream(res: Response): Promise<{ event: string; data: string }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const field = (name: string) =>
        lines
          .filter((l) => l.startsWith(`${name}:`))
          .map((l) => l.slice(name.length + 1).trim())
          .join('\n');
      return { event: field('event') || 'message', data: field('data') };
    });
}

describe('long-lived SSE streams re-check their bearer', () => {
  async function openStream(token: string) {
    const session = await openSession(open.url, bearer(token));
    const res = await fetch(open.url, {
      headers: { ...session.headers, accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    return { session, res };
  }

  it('revoked while open: one auth_lost event with the reason, then the stream ends', async () => {
    const token = mintToken();
    broker.add(token, { callerId: 'token:stream', capabilities: ['jumperless.read'] });
    const { session, res } = await openStream(token);
    broker.revoke(token, 'shift over');
    const events = await readStream(res);
    const last = events.at(-1);
    expect(last?.event).toBe('auth_lost');
    expect(JSON.parse(last?.data ?? '{}')).toMatchObject({ reason: 'revoked', status: 401 });
    expect(last?.data).toMatch(/shift over/);
    // Reconnecting with the same token meets the ordinary gate.
    expectRefusal(await send(open.url, undefined, session.headers, 'GET'), 401, -32002);
  });

  it('expiring while open: ended at the expiry with reason expired', async () => {
    const token = mintToken();
    broker.add(token, {
      callerId: 'token:short',
      capabilities: ['jumperless.read'],
      expiresAt: new Date(Date.now() + 1500),
    });
    const { res } = await openStream(token);
    const events = await readStream(res);
    expect(events.at(-1)?.event).toBe('auth_lost');
    expect(JSON.parse(events.at(-1)?.data ?? '{}')).toMatchObject({ reason: 'expired' });
  });

  it('refuses a 2026-07-28 subscriptions/listen to a caller who may not read: no stream, the capability error', async () => {
    const token = mintToken();
    broker.add(token, { callerId: 'token:blind', capabilities: [] });
    const res = await fetch(open.url, {
      method: 'POST',
      headers: {
        ...bearer(token),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: true, resourceSubscriptions: ['jumperless://board/state'] },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toMatchObject({
      id: 4,
      error: {
        code: -32603,
        message: expect.stringMatching(/Capability denied: subscriptions\/listen needs jumperless.read/),
        data: { code: 1001, missing: ['jumperless.read'] },
      },
    });
  });

  it('a 2026-07-28 subscriptions/listen stream: revoked while open, one auth_lost event, then it ends', async () => {
    const token = mintToken();
    broker.add(token, { callerId: 'token:listen', capabilities: ['jumperless.read'] });
    const res = await fetch(open.url, {
      method: 'POST',
      headers: {
        ...bearer(token),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: true },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    broker.revoke(token, 'listening no more');
    const events = await readStream(res);
    expect(events[0]?.data).toMatch(/subscriptions\/acknowledged/);
    const last = events.at(-1);
    expect(last?.event).toBe('auth_lost');
    expect(JSON.parse(last?.data ?? '{}')).toMatchObject({ reason: 'revoked', status: 401 });
    expect(last?.data).toMatch(/listening no more/);
  });

  it('a valid token keeps its stream open through many checks', async () => {
    const { session, res } = await openStream(READER);
    const reader = res.body?.getReader();
    const before = broker.calls;
    await expect.poll(() => broker.calls - before, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    // Still open: cancel it ourselves, then the session still works.
    await reader?.cancel();
    expect((await session.tool('test_simple_text')).body?.result).toBeDefined();
  });
});

/** fetch drops a Host header; node:http sends it as given. */
function statusWithHost(url: string, host: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const body = JSON.stringify(INIT);
    const req = request(url, {
      method: 'POST',
      headers: {
        host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
        ...headers,
      },
    });
    req.on('response', (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** The CLI with the conformance fixtures beside the board's tools. */
const FIXTURES_CLI = 'test/fixtures/conformance/cli.ts';

describe('binding off loopback (the real CLI)', () => {
  const ROOT = resolve(import.meta.dirname, '..', '..');
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'jlmcp-bind-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function cli(args: string[], tokens: string, entry = 'src/cli/main.ts') {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: dir, JUMPERLESS_MCP_TOKENS: tokens },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    return { child, exited, stderr: () => stderr };
  }

  it('refuses to start without an active token, saying how to make one', async () => {
    const run = cli(['--sim', '--http', '0.0.0.0:0'], join(dir, 'empty.json'));
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/refusing to listen on 0\.0\.0\.0/);
    expect(run.stderr()).toMatch(/jumperless-mcp tokens create --caps/);
  });

  it('starts with a token; then every caller needs a bearer', async () => {
    const path = join(dir, 'tokens.json');
    const { token } = await new FileTokenStore(path).create({ capabilities: ['jumperless.read'] });
    const run = cli(['--sim', '--http', '0.0.0.0:0'], path, FIXTURES_CLI);
    try {
      await expect
        .poll(() => /serving http:\/\/0\.0\.0\.0:\d+/.test(run.stderr()), { timeout: 20_000 })
        .toBe(true);
      const port = /0\.0\.0\.0:(\d+)/.exec(run.stderr())?.[1];
      const url = `http://127.0.0.1:${port}/mcp`;
      expectRefusal(await send(url, INIT), 401, -32002, { 'www-authenticate': 'Bearer' });
      const session = await openSession(url, bearer(token));
      expect((await session.tool('test_simple_text')).body?.result).toBeDefined();
      // Host is not checked off loopback (bearers guard it), Origin still is.
      expect(await statusWithHost(url, 'lab-pc.local:1', bearer(token))).toBe(200);
      expect(await statusWithHost(open.url, 'lab-pc.local:1', bearer(token))).toBe(403);
      expectRefusal(await send(url, INIT, { ...bearer(token), origin: 'http://evil.example' }), 403, -32001);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
});
